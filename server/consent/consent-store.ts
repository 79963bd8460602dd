import { suppressedIds } from '../privacy/suppressions.js';
import { op } from '../storage/sql-program.js';
import type { Storage } from '../storage/storage.js';

/** A consent record as validated (validate-consent.ts) and stored. */
export interface ConsentRecord {
  profileId: string;
  sourceId?: string;
  action: 'accept' | 'reject';
  /** Epoch milliseconds after which the record no longer counts. */
  validUntil: number;
  /** Absent means the record covers every category; stored as `default`. */
  category?: string;
  /** A whole decision: a row per category, accepted or rejected, instead of `action` and `category`. */
  categories?: Record<string, boolean>;
  email?: string;
  message?: string;
  /** Dedupe key: a record resent with the same eventId is stored once. */
  eventId?: string;
  /** Epoch milliseconds of the decision (client clock); defaults to the time received. */
  timestamp?: number;
  /** How the visitor decided: `banner`, `api`, `gpc` (the browser's Global Privacy Control), `tcf` (a CMP). */
  source?: string;
  /** The version of what the visitor was shown (the banner's text), as the site names it. */
  version?: string;
  /** The page the decision was made on (no query string). */
  page?: string;
}

const DEFAULT_CATEGORY = 'default';

/**
 * Stores a consent record, once per `eventId` when it has one; false when that eventId was stored before, or when the
 * record names an erased person (the suppression list).
 * A record with `categories` is stored as a row per category, in one transaction, each row deduplicated by
 * `<eventId>:<category>`.
 * @example await recordConsent(storage, 'acme/shop', { profileId: 'p1', action: 'accept', validUntil })
 */
export function recordConsent(storage: Storage, project: string, record: ConsentRecord): Promise<boolean> {
  const now = Date.now();
  const rows: [category: string, action: ConsentRecord['action'], eventId: string | null][] = record.categories
    ? Object.entries(record.categories).map(([category, accepted]) => [
        category, accepted ? 'accept' : 'reject', record.eventId === undefined ? null : `${record.eventId}:${category}`,
      ])
    : [[record.category ?? DEFAULT_CATEGORY, record.action, record.eventId ?? null]];
  return storage.run(function* () {
    // An erased person's record (an old outbox replaying) is stored nowhere.
    if ((yield* suppressedIds(project, [record.profileId], [])).size > 0) return false;
    if (record.email !== undefined) {
      const { rows } = yield op("SELECT 1 FROM suppressions WHERE project = ? AND kind = 'email' AND value = ?", project, record.email);
      if (rows.length > 0) return false;
    }
    let stored = false;
    for (const [category, action, eventId] of rows) {
      const { rows: inserted } = yield op(
        `INSERT INTO consents (project, profile_id, source_id, category, action, valid_until, email, message, event_id, ts, received_at,
           source, banner_version, page)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (project, event_id) DO NOTHING RETURNING id`,
        project, record.profileId, record.sourceId ?? null, category, action,
        record.validUntil, record.email ?? null, record.message ?? null, eventId, record.timestamp ?? now, now,
        record.source ?? null, record.version ?? null, record.page ?? null,
      );
      if (inserted.length === 1) stored = true;
    }
    return stored;
  });
}
