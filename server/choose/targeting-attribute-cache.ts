import type { Attributes } from '../../src/event.js';

/** What storage holds for a profile's targeting: its profile attributes and its first account's. */
export interface StoredTargeting {
  profile: Attributes;
  account: Attributes;
}

interface Entry {
  canonicalProfileId: string;
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
 * Attributes do not come from the config, so a config reload leaves this cache alone. One entry per profile,
 * for the canonical profile it was read with (an identified profile reads anew). Bounded per project: the oldest
 * entry goes first.
 * @example const cache = new TargetingAttributeCache(() => Date.now(), 10_000);
 */
export class TargetingAttributeCache {
  // Project → profile → its entry, which names the canonical profile it was read for: nested, like
  // CanonicalProfileCache, so the request's profile id is hashed once for every per-profile cache.
  private readonly projects = new Map<string, Map<string, Entry>>();
  private entries = 0;

  /** `maxEntries` bounds each project's entries. */
  constructor(private readonly now: () => number, private readonly ttlMs = 10_000, private readonly maxEntries = 50_000) {}

  get size(): number {
    return this.entries;
  }

  get(project: string, profileId: string, canonicalProfileId: string): StoredTargeting | undefined {
    const profiles = this.projects.get(project);
    const entry = profiles?.get(profileId);
    if (entry === undefined || entry.canonicalProfileId !== canonicalProfileId) return undefined;
    if (entry.expiresAt <= this.now()) {
      profiles!.delete(profileId);
      this.entries--;
      return undefined;
    }
    return entry.value;
  }

  set(project: string, profileId: string, canonicalProfileId: string, value: StoredTargeting): void {
    let profiles = this.projects.get(project);
    if (profiles === undefined) {
      profiles = new Map();
      this.projects.set(project, profiles);
    }
    // Re-inserted at the end: insertion order is expiry order, so a project's first entry is its oldest.
    if (profiles.delete(profileId)) this.entries--;
    profiles.set(profileId, { canonicalProfileId, value, expiresAt: this.now() + this.ttlMs });
    this.entries++;
    if (profiles.size > this.maxEntries) {
      const oldest = profiles.keys().next();
      if (!oldest.done) {
        profiles.delete(oldest.value);
        this.entries--;
      }
    }
  }
}
