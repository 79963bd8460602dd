// What tests read back from a database to check what the service stored: read programs the service itself does not
// need, run through the storage like any domain's.
import { op, type SqlValue } from '../../../server/storage/sql-program.js';
import { num, str } from '../../../server/storage/sql-values.js';
import type { Storage } from '../../../server/storage/storage.js';

/** Rows of one statement. */
function rows(storage: Storage, sql: string, ...params: SqlValue[]) {
  return storage.run(function* () {
    return (yield op(sql, ...params)).rows;
  });
}

export interface ConsentState {
  category: string;
  action: 'accept' | 'reject';
  validUntil: number;
  timestamp: number;
  sourceId: string | null;
}

/** The latest not-expired consent record per category (at `nowMs`, default now). */
export async function consentState(storage: Storage, project: string, profileId: string, nowMs: number = Date.now()): Promise<ConsentState[]> {
  const found = await rows(
    storage,
    `SELECT category, action, valid_until, ts, source_id FROM consents
     WHERE project = ? AND profile_id = ? AND valid_until > ?
     ORDER BY category, ts DESC, id DESC`,
    project, profileId, nowMs,
  );
  const latest = new Map<string, ConsentState>();
  for (const r of found) {
    const category = str(r.category);
    if (latest.has(category)) continue;
    latest.set(category, {
      category,
      action: str(r.action) === 'accept' ? 'accept' : 'reject',
      validUntil: num(r.valid_until),
      timestamp: num(r.ts),
      sourceId: r.source_id === null ? null : str(r.source_id),
    });
  }
  return [...latest.values()];
}
