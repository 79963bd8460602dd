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
  email?: string;
  message?: string;
  /** Dedupe key: a record resent with the same eventId is stored once. */
  eventId?: string;
  /** Epoch milliseconds of the decision (client clock); defaults to the time received. */
  timestamp?: number;
}

const DEFAULT_CATEGORY = 'default';

/**
 * Stores a consent record, once per `eventId` when it has one; false when that eventId was stored before.
 * @example await recordConsent(storage, 'acme/shop', { profileId: 'p1', action: 'accept', validUntil })
 */
export function recordConsent(storage: Storage, project: string, record: ConsentRecord): Promise<boolean> {
  const now = Date.now();
  return storage.run(function* () {
    const { rows } = yield op(
      `INSERT INTO consents (project, profile_id, source_id, category, action, valid_until, email, message, event_id, ts, received_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (project, event_id) DO NOTHING RETURNING id`,
      project, record.profileId, record.sourceId ?? null, record.category ?? DEFAULT_CATEGORY, record.action,
      record.validUntil, record.email ?? null, record.message ?? null, record.eventId ?? null,
      record.timestamp ?? now, now,
    );
    return rows.length === 1;
  });
}
