import { sameElements } from './engine/same-elements.js';

/**
 * Drops the repeats of an exposure within one session on this node: a profile that sees the same variation of
 * the same experience again in the same session (every page view of a visit asks the Choose API again) adds
 * no row. Why results stay correct: analysis counts each unit once per experiment — by its FIRST exposure
 * (which variation, and from when its conversions count) — as experimentation tools do (GrowthBook's SDK
 * fires its tracking callback once per experiment and variation too). A repeat in the same session carries
 * neither a new unit, nor a new variation (assignments are sticky), nor an earlier time; the first exposure
 * of every session is still written, so per-session analyses keep every session.
 * What this is not: a guarantee of uniqueness. Another node, a restart, an eviction from this bounded set or
 * concurrent first visits of one new session (ChooseService.firstVisit records a session once its write is stored)
 * write the exposure again, so the table holds AT LEAST one row per (profile, experience, variation,
 * session) that was served, and analysis must count distinct units (it must anyway: sessions repeat them).
 * Rows without a session id are never dropped (nothing tells two visits apart).
 * @example const written = dedupe.record('acme/shop', profileId, sessionId, result.exposed, (fresh) => writer.add(set(fresh)));
 */
export class ExposureDedupe {
  // Project → profile → its latest sessions → experience → variation. Nested rather than one concatenated key, so
  // the request's profile and session ids (strings parsed from its body, the profile's already hashed by the other
  // per-profile caches) are looked up as they are (see AssignmentCache for why that matters). A profile keeps its
  // SESSIONS_PER_PROFILE most recently used sessions: a visitor has one at a time, and a session pushed out and seen
  // again is written again (this is not a guarantee of uniqueness, above); the bound keeps one profile id shared by
  // many visitors from holding unbounded memory.
  // Bounded by two generations rather than an exact LRU order: profiles seen lately are in `current`; when it
  // holds half the bound, it becomes `previous` and the older `previous` is dropped whole. A profile found in
  // `previous` moves to `current`. So a profile seen within the last half-bound of entries is always kept, and
  // a hit costs one lookup (an exact LRU paid a delete and a re-insert on every request).
  private current = new Map<string, Map<string, ProfileSessions>>();
  private previous = new Map<string, Map<string, ProfileSessions>>();
  private currentEntries = 0;
  private previousEntries = 0;

  constructor(private readonly maxEntries = 200_000) {}

  /** (profile, experience, variation, session) combinations remembered. */
  get size(): number {
    return this.currentEntries + this.previousEntries;
  }

  /**
   * Writes the exposures of ONE request (one project, profile and session) not yet seen in their session, with
   * `write(fresh)`, remembering them (without a session id, all of them); answers what the answer must wait for: that
   * write, and any earlier write of the session's exposures still under way, because a repeat must not be answered
   * before the exposure it repeats is stored (a crash in between would lose an answered exposure). Null when there is
   * nothing to wait for: a returning visitor's repeat once the session's first answer is stored, which builds no row.
   * @example const written = dedupe.record(project, profileId, sessionId, exposed, (fresh) => writer.add({ …, choices: fresh }));
   */
  record<T extends { name: string; variation?: string | null }>(
    project: string, profileId: string, sessionId: string | null | undefined, exposures: readonly T[],
    write: (fresh: readonly T[]) => Promise<void>,
  ): Promise<void> | null {
    if (exposures.length === 0) return null;
    if (sessionId === undefined || sessionId === null) return write(exposures);
    const session = this.session(project, profileId, sessionId);
    const fresh = this.fresh(session, exposures);
    if (fresh.length === 0) return session.writing;
    const mine = write(fresh);
    const earlier = session.writing;
    const all = earlier === null ? mine : Promise.all([earlier, mine]).then(() => undefined);
    session.writing = all;
    // The writes never reject (ExposureWriter parks what fails).
    void all.then(() => {
      if (session.writing === all) session.writing = null;
    });
    return all;
  }

  /** Forgets a profile's sessions (an erased person's). */
  forget(project: string, profileId: string): void {
    for (const [generation, isCurrent] of [[this.current, true], [this.previous, false]] as const) {
      const sessions = generation.get(project)?.get(profileId);
      if (sessions === undefined) continue;
      let entries = 0;
      for (const session of sessions.values()) entries += session.seen.size;
      generation.get(project)!.delete(profileId);
      if (isCurrent) this.currentEntries -= entries;
      else this.previousEntries -= entries;
    }
  }

  /** Whether the session's exposures are remembered (a session without an id never is). Changes nothing. */
  holdsSession(project: string, profileId: string, sessionId: string | null | undefined): boolean {
    if (sessionId === undefined || sessionId === null) return false;
    const sessions = this.current.get(project)?.get(profileId) ?? this.previous.get(project)?.get(profileId);
    return sessions?.has(sessionId) ?? false;
  }

  /** The exposures not yet seen in `session`, remembering them; the array itself when none is a repeat. */
  private fresh<T extends { name: string; variation?: string | null }>(session: SessionExposures, exposures: readonly T[]): readonly T[] {
    // The same exposure objects as the session's last request: each was remembered then, so all are repeats, found
    // without a lookup each. Sound because a served choice is the compiled config's frozen object (the same object
    // means the same name and variation); a feed's choice, built per request, never matches.
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

  /** The session's remembered exposures (its profile in `current`, moved there from `previous`, or new). */
  private session(project: string, profileId: string, sessionId: string): SessionExposures {
    const sessions = this.profileSessions(project, profileId);
    let session = sessions.get(sessionId);
    if (session !== undefined) {
      // Used: now the profile's latest (the last of its sessions, the one kept longest).
      if (sessions.size > 1) {
        sessions.delete(sessionId);
        sessions.set(sessionId, session);
      }
    } else {
      if (sessions.size >= SESSIONS_PER_PROFILE) {
        const oldest = sessions.entries().next();
        if (!oldest.done) {
          sessions.delete(oldest.value[0]);
          this.currentEntries -= oldest.value[1].seen.size;
        }
      }
      session = { seen: new Map(), last: null, writing: null };
      sessions.set(sessionId, session);
    }
    return session;
  }

  private profileSessions(project: string, profileId: string): ProfileSessions {
    const recent = this.current.get(project)?.get(profileId);
    if (recent !== undefined) return recent;
    const olderProfiles = this.previous.get(project);
    let sessions = olderProfiles?.get(profileId);
    let weight = 0;
    if (sessions !== undefined) {
      olderProfiles!.delete(profileId);
      for (const session of sessions.values()) weight += session.seen.size;
      this.previousEntries -= weight;
    } else {
      sessions = new Map();
    }
    // Half the bound reached: start a new generation before adding (the oldest one goes whole).
    if (this.currentEntries >= this.maxEntries / 2) {
      this.previous = this.current;
      this.previousEntries = this.currentEntries;
      this.current = new Map();
      this.currentEntries = 0;
    }
    let profiles = this.current.get(project);
    if (profiles === undefined) {
      profiles = new Map();
      this.current.set(project, profiles);
    }
    profiles.set(profileId, sessions);
    this.currentEntries += weight;
    return sessions;
  }
}

/** The most sessions remembered per profile; a new one pushes out the least recently used. */
const SESSIONS_PER_PROFILE = 16;

/** A profile's sessions, least recently used first. */
type ProfileSessions = Map<string, SessionExposures>;

/**
 * One session's exposures: experience → variation, the exposures of its last request as they were passed, and the
 * write of its exposures still under way (`record`), if any.
 */
interface SessionExposures {
  seen: Map<string, string>;
  last: readonly unknown[] | null;
  writing: Promise<void> | null;
}

const NO_EXPOSURES: readonly never[] = Object.freeze([]);
