import { ProjectScopedMap } from '../memory/project-scoped-map.js';

/**
 * A per-node memory of canonicalProfile in identity-store.ts (profile → the profile whose assignments it shares), so a
 * returning visitor's Choose request does not pay the identity-graph query on every page view.
 *
 * Why every entry expires (after `ttlMs`, default 2 s), positive ones included:
 * - "P is its own canonical" is the anonymous state and changes as soon as P is identified as a user whose
 *   first profile is another one (a second device logging in).
 * - "P → C" with C ≠ P is NOT permanent either: P's first user link never changes, but that user's profile
 *   is resolved through the alias chain (resolveUserProgram takes the deepest user with a profile), and an
 *   alias ingested later can extend the chain to another person's first profile.
 * So nothing here may live long. Correctness on THIS node does not rest on the TTL: every identify or alias
 * ingested here clears the whole memory (`invalidateAll`, called once the link is stored, before the track
 * request is answered), so a client that logs in and then asks for its variation sees the new link at once.
 * Links ingested by ANOTHER node are seen within `ttlMs`: for at most that long a visitor who just logged in
 * on a second device may still get its own (anonymous) variation instead of the person's, which is what it
 * got a moment before; assignments themselves stay exact (stored first-wins in the database).
 * A lookup that started before an invalidation is not remembered (the generation check in `set`), so a
 * query answered just before a link was committed cannot re-insert the old answer after the clear.
 * Bounded (ProjectScopedMap): the oldest entry goes first, from a project holding more than its share.
 * @example
 * const generation = cache.generation;
 * const canonical = cache.get(project, profileId) ?? cache.set(project, profileId, await load(), generation);
 */
export class CanonicalProfileCache {
  // Nested by project, then profile (ProjectScopedMap): the request's profile id is hashed once for every
  // per-profile cache of the Choose route.
  private readonly entries: ProjectScopedMap<{ canonical: string; expiresAt: number }>;
  private currentGeneration = 0;

  constructor(private readonly now: () => number, private readonly ttlMs = 2_000, maxEntries = 50_000) {
    this.entries = new ProjectScopedMap(maxEntries);
  }

  /** Entries held (expired ones included until they are read or pushed out). */
  get size(): number {
    return this.entries.size;
  }

  /** Taken before a lookup and passed to `set`: an invalidation in between makes `set` forget the answer. */
  get generation(): number {
    return this.currentGeneration;
  }

  get(project: string, profileId: string): string | undefined {
    const entry = this.entries.get(project, profileId);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(project, profileId);
      return undefined;
    }
    return entry.canonical;
  }

  /** Remembers a stored answer read under `generation`; returns `canonical` for chaining. */
  set(project: string, profileId: string, canonical: string, generation: number): string {
    if (generation !== this.currentGeneration) return canonical;
    // Set as the newest: insertion order is expiry order, so a project's first entry is its oldest.
    this.entries.set(project, profileId, { canonical, expiresAt: this.now() + this.ttlMs });
    return canonical;
  }

  /** An identify or alias was stored on this node: any profile's canonical may have changed. */
  invalidateAll(): void {
    this.currentGeneration++;
    this.entries.clear();
  }
}
