/**
 * Stored first assignments this node has already read, keyed by project, experience and unit. Safe to
 * cache without expiry across N nodes because a stored assignment never changes (insert-if-absent, never
 * updated): the cache only ever repeats what the database answered and is never the guard that decides
 * a first assignment (DESIGN 4) — a miss still goes to the database. Bounded: the oldest entries go first.
 * @example const cache = new AssignmentCache(100_000); cache.get('acme/shop', 'hero', 'p-1');
 */
export class AssignmentCache {
  private readonly entries = new Map<string, string>();

  constructor(private readonly maxEntries = 100_000) {}

  get size(): number {
    return this.entries.size;
  }

  get(project: string, experience: string, unit: string): string | undefined {
    return this.entries.get(key(project, experience, unit));
  }

  set(project: string, experience: string, unit: string, variation: string): void {
    const k = key(project, experience, unit);
    if (this.entries.has(k)) return;
    if (this.entries.size >= this.maxEntries) {
      // Map iterates in insertion order: the first key is the oldest entry.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(k, variation);
  }
}

function key(project: string, experience: string, unit: string): string {
  return `${project}\u0000${experience}\u0000${unit}`;
}
