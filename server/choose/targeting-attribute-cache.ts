import type { Attributes } from '../../wire/event.js';
import type { StoredTargeting } from '../identity/identity-programs.js';
import { ProjectScopedMap } from '../memory/project-scoped-map.js';

/** What storage holds for a profile's targeting (storedTargetingProgram), and what was last composed from it. */
export interface CachedTargeting extends StoredTargeting {
  /**
   * The attributes last composed from this entry for a request (withRequestFacts in targeting-attributes.ts), with
   * the request facts they were composed for: a profile's next request with the same facts reuses them.
   */
  composed?: { profileId: string; device: string | undefined; url: string | undefined; attributes: Readonly<Attributes> };
}

interface Entry {
  canonicalProfileId: string;
  value: CachedTargeting;
  expiresAt: number;
}

/**
 * A short-lived per-node memory of the stored attributes `condition` rules read (targeting-attributes.ts),
 * keyed by (project, profile, canonical profile). Without it each request selecting a targeted experience
 * cost three to five attribute queries, repeated for every page view of the same visitor. Staleness is acceptable for
 * targeting and bounded by `ttlMs`: an attribute tracked a moment ago counts within `ttlMs` rather than at once, and a
 * visitor who newly matches a condition is enrolled on a later request. Assignments stay exact: they are sticky in the
 * database, never here. Attributes do not come from the config, so a config reload leaves this cache alone. One entry
 * per profile, for the canonical profile it was read with (an identified profile reads anew). Bounded
 * (ProjectScopedMap): the oldest entry goes first, from a project holding more than its share.
 * @example const cache = new TargetingAttributeCache(() => Date.now(), 10_000);
 */
export class TargetingAttributeCache {
  // One entry per profile, naming the canonical profile it was read for; nested by project, then profile
  // (ProjectScopedMap), like CanonicalProfileCache, so the request's profile id is hashed once for both.
  private readonly entries: ProjectScopedMap<Entry>;

  constructor(private readonly now: () => number, private readonly ttlMs = 10_000, maxEntries = 50_000) {
    this.entries = new ProjectScopedMap(maxEntries);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Whether the profile's targeting is remembered and fresh, for whichever canonical profile it was read with. */
  holds(project: string, profileId: string): boolean {
    const entry = this.entries.get(project, profileId);
    return entry !== undefined && entry.expiresAt > this.now();
  }

  get(project: string, profileId: string, canonicalProfileId: string): CachedTargeting | undefined {
    const entry = this.entries.get(project, profileId);
    if (entry === undefined || entry.canonicalProfileId !== canonicalProfileId) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(project, profileId);
      return undefined;
    }
    return entry.value;
  }

  /** Forgets a profile (an erased person's). */
  forget(project: string, profileId: string): void {
    this.entries.delete(project, profileId);
  }

  set(project: string, profileId: string, canonicalProfileId: string, value: CachedTargeting): void {
    // Set as the newest: insertion order is expiry order, so a project's first entry is its oldest.
    this.entries.set(project, profileId, { canonicalProfileId, value, expiresAt: this.now() + this.ttlMs });
  }
}
