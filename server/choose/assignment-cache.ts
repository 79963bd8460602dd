/**
 * Stored first assignments this node has already read, keyed by project, experience and unit. Safe to
 * cache without expiry across N nodes because a stored assignment never changes (insert-if-absent, never
 * updated): the cache only ever repeats what the database answered and is never the guard that decides
 * a first assignment (DESIGN 4) — a miss still goes to the database. Bounded: the least recently used units go
 * first, so the returning visitors that make up most of the traffic stay cached while one-off visitors pass.
 * @example const cache = new AssignmentCache(100_000); cache.get('acme/shop', 'hero', 'p-1');
 */
export class AssignmentCache {
  // Unit → its experiences' variations. Nested rather than one concatenated key per pair: a request asks for
  // 20 experiences of ONE unit, and hashing a freshly built string per pair was ≈5 % of the service's CPU under
  // the bench; this way one key is built per unit (memoised below) and experience names, config strings whose
  // hash V8 caches, are looked up as they are. Map iteration order is insertion order, and a unit that is used
  // is deleted and set again (moved to the end): the first unit is the least recently used, and a whole unit
  // goes first when the bound is passed.
  private readonly units = new Map<string, Map<string, string>>();
  private entries = 0;
  // The unit last moved to (or inserted at) the end: a request reads its unit's experiences one after another,
  // so only the first read of a run pays for the delete+set.
  private tailKey: string | undefined;
  private lastProject = '';
  private lastUnit = '';
  private lastKey = '\u0000';

  constructor(private readonly maxEntries = 100_000) {}

  /** Stored (project, experience, unit) pairs held. */
  get size(): number {
    return this.entries;
  }

  get(project: string, experience: string, unit: string): string | undefined {
    return this.unitAssignments(project, unit)?.get(experience);
  }

  /** The unit's stored variations by experience (read-only), marking the unit used; undefined when none is held. */
  unitAssignments(project: string, unit: string): ReadonlyMap<string, string> | undefined {
    const k = this.unitKey(project, unit);
    const experiences = this.units.get(k);
    if (experiences !== undefined) this.touch(k, experiences);
    return experiences;
  }

  set(project: string, experience: string, unit: string, variation: string): void {
    const k = this.unitKey(project, unit);
    let experiences = this.units.get(k);
    if (experiences === undefined) {
      experiences = new Map();
      this.units.set(k, experiences);
      this.tailKey = k;
    } else {
      this.touch(k, experiences);
      if (experiences.has(experience)) return;
    }
    experiences.set(experience, variation);
    this.entries++;
    while (this.entries > this.maxEntries) {
      const oldest = this.units.entries().next();
      if (oldest.done) break;
      this.units.delete(oldest.value[0]);
      this.entries -= oldest.value[1].size;
      if (oldest.value[0] === this.tailKey) this.tailKey = undefined;
    }
  }

  /** Marks a unit most recently used (moves it to the end of `units`). */
  private touch(k: string, experiences: Map<string, string>): void {
    if (k === this.tailKey) return;
    this.units.delete(k);
    this.units.set(k, experiences);
    this.tailKey = k;
  }

  private unitKey(project: string, unit: string): string {
    if (project !== this.lastProject || unit !== this.lastUnit) {
      this.lastProject = project;
      this.lastUnit = unit;
      this.lastKey = `${project}\u0000${unit}`;
    }
    return this.lastKey;
  }
}
