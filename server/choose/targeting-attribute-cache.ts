import type { Attributes } from '../../src/event.js';

/** What storage holds for a profile's targeting: its profile attributes and its first account's. */
export interface StoredTargeting {
  profile: Attributes;
  account: Attributes;
}

interface Entry {
  value: StoredTargeting;
  expiresAt: number;
}

/**
 * A short-lived per-node memory of the stored attributes `condition` rules read (targeting-attributes.ts),
 * keyed by (project, profile, canonical profile). Without it each request selecting a targeted experience
 * cost three to five attribute queries (≈8 % of the service's CPU under the bench), repeated for every page
 * view of the same visitor. Staleness is acceptable for targeting and bounded by `ttlMs`: an attribute
 * tracked a moment ago counts within `ttlMs` rather than at once, and a visitor who newly matches a condition
 * is enrolled on a later request. Assignments stay exact: they are sticky in the database, never here.
 * Attributes do not come from the config, so a config reload leaves this cache alone. Bounded: the oldest
 * entry goes first.
 * @example const cache = new TargetingAttributeCache(() => Date.now(), 10_000);
 */
export class TargetingAttributeCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number, private readonly ttlMs = 10_000, private readonly maxEntries = 50_000) {}

  get size(): number {
    return this.entries.size;
  }

  get(project: string, profileId: string, canonicalProfileId: string): StoredTargeting | undefined {
    const k = key(project, profileId, canonicalProfileId);
    const entry = this.entries.get(k);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(k);
      return undefined;
    }
    return entry.value;
  }

  set(project: string, profileId: string, canonicalProfileId: string, value: StoredTargeting): void {
    const k = key(project, profileId, canonicalProfileId);
    // Re-inserted at the end: insertion order is expiry order, so the first entry is the oldest.
    this.entries.delete(k);
    this.entries.set(k, { value, expiresAt: this.now() + this.ttlMs });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }
}

function key(project: string, profileId: string, canonicalProfileId: string): string {
  return `${project}\u0000${profileId}\u0000${canonicalProfileId}`;
}
