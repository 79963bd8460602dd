import type { Actor } from '../auth/management-caller.js';
import { lockingRows, op, type SqlProgram, type SqlRow } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import { failPending, readEndpoint, type AppendAudit } from './endpoint-store.js';

// An endpoint's failing streak: `failing_since` is when the first attempt failed after its last success (cleared by
// the next success). An endpoint that has failed for `retryForMs` (24 h) is disabled by the service, with the audit
// saying so, and its pending deliveries are given up: a dead receiver is not knocked on forever.

/** Who disables an endpoint in the audit log: the service, by itself. */
export const WEBHOOKS_ACTOR: Actor = { type: 'key', id: 'service', name: 'svc webhooks' };

/** An endpoint's row as an attempt's record needs it (locked for its transaction). */
export type EndpointRow = SqlRow;

/** An attempt that failed, as its endpoint's streak counts it. */
export interface EndpointFailure {
  /** When the attempt began, and when it was recorded. */
  at: number;
  now: number;
  error: string;
  retryForMs: number;
  /**
   * When the delivery now given up was first attempted (null when it is retried): an endpoint failing ever since has
   * failed for the delivery's whole `retryForMs`.
   */
  gaveUpSince: number | null;
}

/**
 * Locks an endpoint's row until the transaction ends; null when it no longer exists. Taken before the delivery's row,
 * as everywhere the two are written together (a disable writes the endpoint's deliveries), so two attempts of one
 * endpoint recorded at once wait for each other instead of deadlocking.
 */
export function* lockEndpoint(project: string, id: string): SqlProgram<EndpointRow | null> {
  const { rows } = yield lockingRows(
    op('SELECT project, id, enabled, failing_since FROM webhook_endpoints WHERE project = ? AND id = ?', project, id), 'wait',
  );
  return rows[0] ?? null;
}

/** A delivery succeeded: the endpoint is not failing. */
export function* endpointSucceeded(endpoint: EndpointRow): SqlProgram<void> {
  if (endpoint.failing_since === null) return;
  yield op('UPDATE webhook_endpoints SET failing_since = NULL WHERE project = ? AND id = ?', str(endpoint.project), str(endpoint.id));
}

/**
 * An attempt failed: the streak begins (when it had not), and an enabled endpoint failing for `retryForMs` (or
 * throughout a delivery given up now) is disabled, audited through `audit`. Answers whether it was.
 */
export function* endpointFailed(endpoint: EndpointRow, failure: EndpointFailure, audit: AppendAudit): SqlProgram<boolean> {
  const project = str(endpoint.project);
  const id = str(endpoint.id);
  const since = endpoint.failing_since === null ? failure.at : num(endpoint.failing_since);
  if (endpoint.failing_since === null) yield op('UPDATE webhook_endpoints SET failing_since = ? WHERE project = ? AND id = ?', since, project, id);
  if (num(endpoint.enabled) !== 1) return false;
  const failedThroughout = failure.gaveUpSince !== null && since <= failure.gaveUpSince;
  if (failure.now - since < failure.retryForMs && !failedThroughout) return false;

  const before = (yield* readEndpoint(project, id))!;
  const reason = `failing since ${new Date(since).toISOString()}; last attempt: ${failure.error}`;
  yield op(
    'UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?, version = version + 1, updated_at = ? WHERE project = ? AND id = ?',
    reason, failure.now, project, id,
  );
  yield* failPending(project, id, 'endpoint disabled');
  const after = (yield* readEndpoint(project, id))!;
  yield* audit({
    project, at: failure.now, keyId: WEBHOOKS_ACTOR.id, action: 'disable', kind: 'webhook', name: id, before, after, actor: WEBHOOKS_ACTOR,
  });
  return true;
}
