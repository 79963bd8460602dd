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
 * @example const fresh = dedupe.newInSession('acme/shop', profileId, sessionId, result.exposed);
 */
export class ExposureDedupe {
  // (project, profile, session) → experience → variation. Nested so that a request's exposures, which share one
  // profile and session, build one key between them (see AssignmentCache for why that matters).
  // Bounded by two generations rather than an exact LRU order: sessions seen lately are in `current`; when it
  // holds half the bound, it becomes `previous` and the older `previous` is dropped whole. A session found in
  // `previous` moves to `current`. So a session seen within the last half-bound of entries is always kept, and
  // a hit costs one lookup (an exact LRU paid a delete and a re-insert on every request).
  private current = new Map<string, SessionExposures>();
  private previous = new Map<string, SessionExposures>();
  private currentEntries = 0;
  private previousEntries = 0;

  constructor(private readonly maxEntries = 200_000) {}

  /** (profile, experience, variation, session) combinations remembered. */
  get size(): number {
    return this.currentEntries + this.previousEntries;
  }

  /**
   * The exposures of ONE request (one project, profile and session) not yet seen in their session, remembering
   * them; the array itself when none is a repeat. Called before any row is built: a returning visitor's request
   * repeats all of its exposures and then builds none. Without a session id, all of them.
   */
  newInSession<T extends { name: string; variation?: string | null }>(
    project: string, profileId: string, sessionId: string | null | undefined, exposures: readonly T[],
  ): readonly T[] {
    if (sessionId === undefined || sessionId === null || exposures.length === 0) return exposures;
    const session = this.session(`${project}\u0000${profileId}\u0000${sessionId}`);
    // The same exposure objects as the session's last request (a returning unit is served the config's frozen
    // choices): each was remembered then, so all are repeats, found without a lookup each.
    if (session.last !== null && sameElements(session.last, exposures)) return NO_EXPOSURES;
    session.last = exposures;
    const seen = session.seen;
    if (seen.size === 0) {
      // A new session: nothing to compare (an answer names each experience once).
      for (let i = 0; i < exposures.length; i++) seen.set((exposures[i] as T).name, (exposures[i] as T).variation ?? '');
      this.currentEntries += seen.size;
      return exposures;
    }
    let kept: T[] | null = null;
    for (let i = 0; i < exposures.length; i++) {
      const exposure = exposures[i] as T;
      const variation = exposure.variation ?? '';
      if (seen.get(exposure.name) === variation) {
        kept ??= exposures.slice(0, i);
        continue;
      }
      if (!seen.has(exposure.name)) this.currentEntries++;
      seen.set(exposure.name, variation);
      kept?.push(exposure);
    }
    return kept ?? exposures;
  }

  /** The session's remembered exposures, in `current` (moved there from `previous`, or new). */
  private session(key: string): SessionExposures {
    const recent = this.current.get(key);
    if (recent !== undefined) return recent;
    const older = this.previous.get(key);
    // Half the bound reached: start a new generation before adding (the oldest one goes whole).
    if (this.currentEntries >= this.maxEntries / 2) {
      this.previous = this.current;
      this.previousEntries = this.currentEntries;
      this.current = new Map();
      this.currentEntries = 0;
    }
    let session = older;
    if (session === undefined) {
      session = { seen: new Map(), last: null };
    } else if (this.previous.delete(key)) {
      this.previousEntries -= session.seen.size;
      this.currentEntries += session.seen.size;
    } else {
      // It was in the generation just dropped: keep it.
      this.currentEntries += session.seen.size;
    }
    this.current.set(key, session);
    return session;
  }
}

/** One session's exposures: experience → variation, and the exposures of its last request as they were passed. */
interface SessionExposures {
  seen: Map<string, string>;
  last: readonly unknown[] | null;
}

const NO_EXPOSURES: readonly never[] = Object.freeze([]);

function sameElements(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
