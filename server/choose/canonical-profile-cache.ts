/**
 * A per-node memory of Storage.canonicalProfile (profile → the profile whose assignments it shares), so a
 * returning visitor's Choose request does not pay the identity-graph query on every page view (≈4–7 % of the
 * service's CPU under the bench).
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
 * got a moment before; assignments themselves stay exact (stored first-wins in the database, DESIGN 4).
 * A lookup that started before an invalidation is not remembered (the generation check in `set`), so a
 * query answered just before a link was committed cannot re-insert the old answer after the clear.
 * Bounded per project (so one busy project cannot push out another's entries): the oldest entry goes first.
 * @example
 * const generation = cache.generation;
 * const canonical = cache.get(project, profileId) ?? cache.set(project, profileId, await load(), generation);
 */
export class CanonicalProfileCache {
  // Project → profile → entry: nested rather than one concatenated key, so the request's profile id (a string
  // parsed from its body) is hashed once and reused by the Choose route's other per-profile caches, where a
  // concatenated key was a new string to flatten and hash in each of them.
  private projects = new Map<string, Map<string, { canonical: string; expiresAt: number }>>();
  private entries = 0;
  private currentGeneration = 0;

  /** `maxEntries` bounds each project's entries. */
  constructor(private readonly now: () => number, private readonly ttlMs = 2_000, private readonly maxEntries = 50_000) {}

  /** Entries held (expired ones included until they are read or pushed out). */
  get size(): number {
    return this.entries;
  }

  /** Taken before a lookup and passed to `set`: an invalidation in between makes `set` forget the answer. */
  get generation(): number {
    return this.currentGeneration;
  }

  get(project: string, profileId: string): string | undefined {
    const profiles = this.projects.get(project);
    const entry = profiles?.get(profileId);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      profiles!.delete(profileId);
      this.entries--;
      return undefined;
    }
    return entry.canonical;
  }

  /** Remembers a stored answer read under `generation`; returns `canonical` for chaining. */
  set(project: string, profileId: string, canonical: string, generation: number): string {
    if (generation !== this.currentGeneration) return canonical;
    let profiles = this.projects.get(project);
    if (profiles === undefined) {
      profiles = new Map();
      this.projects.set(project, profiles);
    }
    // Re-inserted at the end: insertion order is expiry order, so a project's first entry is its oldest.
    if (profiles.delete(profileId)) this.entries--;
    profiles.set(profileId, { canonical, expiresAt: this.now() + this.ttlMs });
    this.entries++;
    if (profiles.size > this.maxEntries) {
      const oldest = profiles.keys().next();
      if (!oldest.done) {
        profiles.delete(oldest.value);
        this.entries--;
      }
    }
    return canonical;
  }

  /** An identify or alias was stored on this node: any profile's canonical may have changed. */
  invalidateAll(): void {
    this.currentGeneration++;
    this.projects = new Map();
    this.entries = 0;
  }
}

/** Whether a track body carries an event that changes the identity graph (and so canonical profiles). */
export function changesIdentity(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const batch = (body as { batch?: unknown }).batch;
  if (!Array.isArray(batch)) return false;
  for (const event of batch as unknown[]) {
    if (typeof event !== 'object' || event === null) continue;
    const type = (event as { type?: unknown }).type;
    if (type === 'identify' || type === 'alias') return true;
  }
  return false;
}
