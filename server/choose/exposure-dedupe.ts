/**
 * Drops the repeats of an exposure within one session on this node: a profile that sees the same variation of
 * the same experience again in the same session (every page view of a visit asks the Choose API again) adds
 * no row. Why results stay correct: analysis counts each unit once per experiment — by its FIRST exposure
 * (which variation, and from when its conversions count) — as experimentation tools do (GrowthBook's SDK
 * fires its tracking callback once per experiment and variation too). A repeat in the same session carries
 * neither a new unit, nor a new variation (assignments are sticky), nor an earlier time; the first exposure
 * of every session is still written, so per-session analyses keep every session.
 * What this is not: a guarantee of uniqueness. Another node, a restart or an eviction from this bounded set
 * writes the exposure again, so the table holds AT LEAST one row per (profile, experience, variation,
 * session) that was served, and analysis must count distinct units (it must anyway: sessions repeat them).
 * Rows without a session id are never dropped (nothing tells two visits apart).
 * @example const fresh = dedupe.newInSession('acme/shop', profileId, sessionId, result.exposures);
 */
export class ExposureDedupe {
  // (project, profile, session) → experience → variation. Nested so that a request's exposures, which share one
  // profile and session, build one key between them (see AssignmentCache for why that matters). Insertion
  // order is recency: a session seen again moves to the end, and the least recently seen session goes first.
  private readonly sessions = new Map<string, Map<string, string>>();
  private entries = 0;

  constructor(private readonly maxEntries = 200_000) {}

  /** (profile, experience, variation, session) combinations remembered. */
  get size(): number {
    return this.entries;
  }

  /**
   * The exposures of ONE request (one project, profile and session) not yet seen in their session, remembering
   * them; the array itself when none is a repeat. Called before any row is built: a returning visitor's request
   * repeats all of its exposures and then builds none. Without a session id, all of them.
   */
  newInSession<T extends { experience: string; variation?: string | null }>(
    project: string, profileId: string, sessionId: string | null | undefined, exposures: readonly T[],
  ): readonly T[] {
    if (sessionId === undefined || sessionId === null || exposures.length === 0) return exposures;
    const seen = this.session(`${project}\u0000${profileId}\u0000${sessionId}`);
    let kept: T[] | null = null;
    for (let i = 0; i < exposures.length; i++) {
      const exposure = exposures[i] as T;
      const variation = exposure.variation ?? '';
      if (seen.get(exposure.experience) === variation) {
        kept ??= exposures.slice(0, i);
        continue;
      }
      if (!seen.has(exposure.experience)) this.entries++;
      seen.set(exposure.experience, variation);
      kept?.push(exposure);
    }
    this.evict();
    return kept ?? exposures;
  }

  private session(key: string): Map<string, string> {
    let seen = this.sessions.get(key);
    if (seen === undefined) {
      seen = new Map();
    } else {
      this.sessions.delete(key);
    }
    this.sessions.set(key, seen);
    return seen;
  }

  private evict(): void {
    while (this.entries > this.maxEntries) {
      const oldest = this.sessions.entries().next();
      if (oldest.done) return;
      this.sessions.delete(oldest.value[0]);
      this.entries -= oldest.value[1].size;
    }
  }
}
