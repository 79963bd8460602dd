import type { ConsentRecord } from '../../wire/consent.js';
import { erasureLock, suppressedIds } from '../privacy/suppressions.js';
import { op } from '../storage/sql-program.js';
import type { Storage } from '../storage/storage.js';

/**
 * A consent record as validated (validate-consent.ts) and stored: the wire's record, its `timestamp` in epoch
 * milliseconds (default the time received), `eventId` and `sourceId` optional (a server-side caller may leave them
 * out).
 */
export type ValidConsent = Omit<ConsentRecord, 'eventId' | 'sourceId' | 'timestamp'> & {
  eventId?: string;
  sourceId?: string;
  timestamp?: number;
};

const DEFAULT_CATEGORY = 'default';

/**
 * Stores a consent record, once per `eventId` when it has one; false when that eventId was stored before, or when the
 * record names an erased person (the suppression list).
 * `email` comes normalized (validate-consent.ts), as every stored address is.
 * A record with `categories` is stored as a row per category, in one transaction, each row deduplicated by
 * `<eventId>:<category>`.
 * @example await recordConsent(storage, 'acme/shop', { profileId: 'p1', action: 'accept', validUntil })
 */
export function recordConsent(storage: Storage, project: string, record: ValidConsent): Promise<boolean> {
  const now = Date.now();
  const rows: [category: string, action: ValidConsent['action'], eventId: string | null][] = record.categories
    ? Object.entries(record.categories).map(([category, accepted]) => [
        category, accepted ? 'accept' : 'reject', record.eventId === undefined ? null : `${record.eventId}:${category}`,
      ])
    : [[record.category ?? DEFAULT_CATEGORY, record.action, record.eventId ?? null]];
  return storage.transaction(function* () {
    // An erased person's record (an old outbox replaying, or the address typed another way) is stored nowhere. Checked
    // in the storing transaction under the erasure lock, as ingestion checks events: an erasure that begins meanwhile
    // waits for this record, which it then finds and strips; one that began first is on the list this reads.
    yield erasureLock([project], 'shared');
    const named = { profiles: [record.profileId], users: [], emails: record.email === undefined ? [] : [record.email] };
    if ((yield* suppressedIds(project, named)).size > 0) return false;
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
