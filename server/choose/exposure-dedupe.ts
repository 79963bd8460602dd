import type { ExposureRow } from '../storage/storage.js';

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
 * @example rows = dedupe.firstInSession(rows);
 */
export class ExposureDedupe {
  // (project, profile, session) → experience → variation. Nested so that a request's rows, which share one
  // profile and session, build one key between them (see AssignmentCache for why that matters). Insertion
  // order is recency: a session seen again moves to the end, and the least recently seen session goes first.
  private readonly sessions = new Map<string, Map<string, string>>();
  private entries = 0;

  constructor(private readonly maxEntries = 200_000) {}

  /** (profile, experience, variation, session) combinations remembered. */
  get size(): number {
    return this.entries;
  }

  /** The rows not yet seen in their session (remembering them); the array itself when none is a repeat. */
  firstInSession(rows: readonly ExposureRow[]): ExposureRow[] {
    let kept: ExposureRow[] | null = null;
    let lastKey: string | null = null;
    let seen: Map<string, string> | undefined;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as ExposureRow;
      let first = true;
      if (row.sessionId !== undefined && row.sessionId !== null) {
        const key = `${row.project}\u0000${row.profileId}\u0000${row.sessionId}`;
        if (key !== lastKey) {
          lastKey = key;
          seen = this.session(key);
        }
        const variation = row.variation ?? '';
        if (seen?.get(row.experience) === variation) {
          first = false;
        } else if (seen !== undefined) {
          if (!seen.has(row.experience)) this.entries++;
          seen.set(row.experience, variation);
        }
      }
      if (first) kept?.push(row);
      else kept ??= rows.slice(0, i);
    }
    this.evict();
    return kept ?? (rows as ExposureRow[]);
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
