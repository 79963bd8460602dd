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
  // Insertion-ordered; a repeat is moved to the end, so the least recently seen key goes first when full.
  private readonly seen = new Set<string>();

  constructor(private readonly maxEntries = 200_000) {}

  get size(): number {
    return this.seen.size;
  }

  /** The rows not yet seen in their session (remembering them); the array itself when none is a repeat. */
  firstInSession(rows: readonly ExposureRow[]): ExposureRow[] {
    let kept: ExposureRow[] | null = null;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as ExposureRow;
      if (this.isFirst(row)) {
        kept?.push(row);
      } else {
        kept ??= rows.slice(0, i);
      }
    }
    return kept ?? (rows as ExposureRow[]);
  }

  private isFirst(row: ExposureRow): boolean {
    if (row.sessionId === undefined || row.sessionId === null) return true;
    const key = `${row.project}\u0000${row.profileId}\u0000${row.experience}\u0000${row.variation ?? ''}\u0000${row.sessionId}`;
    if (this.seen.delete(key)) {
      this.seen.add(key);
      return false;
    }
    this.seen.add(key);
    if (this.seen.size > this.maxEntries) {
      const oldest = this.seen.values().next();
      if (!oldest.done) this.seen.delete(oldest.value);
    }
    return true;
  }
}
