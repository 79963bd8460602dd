import type { Actor } from '../auth/management-caller.js';
import { appendAudit } from '../management/audit-log.js';
import { lockingRows, op, type SqlProgram, type SqlRow } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';

// An endpoint's failing streak: `failing_since` is when the first attempt failed after its last success (cleared by
// the next success). An endpoint that has failed for `retryForMs` (24 h) is disabled by the service, with the audit
// saying so, and its pending deliveries are failed: a dead receiver is not knocked on forever.

/** Who disables an endpoint in the audit log: the service, by itself. */
export const WEBHOOKS_ACTOR: Actor = { type: 'key', id: 'service', name: 'svc webhooks' };

const COLUMNS = 'project, id, url, events, format, enabled, description, version, created_at, updated_at, failing_since, disabled_reason';

/** An endpoint's row, locked for the attempt's transaction. */
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
  const { rows } = yield lockingRows(op(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE project = ? AND id = ?`, project, id), 'wait');
  return rows[0] ?? null;
}

/** A delivery succeeded: the endpoint is not failing. */
export function* endpointSucceeded(endpoint: EndpointRow): SqlProgram<void> {
  if (endpoint.failing_since === null) return;
  yield op('UPDATE webhook_endpoints SET failing_since = NULL WHERE project = ? AND id = ?', str(endpoint.project), str(endpoint.id));
}

/**
 * An attempt failed: the streak begins (when it had not), and an enabled endpoint failing for `retryForMs` (or
 * throughout a delivery given up now) is disabled. Answers whether it was.
 */
export function* endpointFailed(endpoint: EndpointRow, failure: EndpointFailure): SqlProgram<boolean> {
  const since = endpoint.failing_since === null ? failure.at : num(endpoint.failing_since);
  if (endpoint.failing_since === null) {
    yield op('UPDATE webhook_endpoints SET failing_since = ? WHERE project = ? AND id = ?', since, str(endpoint.project), str(endpoint.id));
  }
  if (num(endpoint.enabled) !== 1) return false;
  const failedThroughout = failure.gaveUpSince !== null && since <= failure.gaveUpSince;
  if (failure.now - since < failure.retryForMs && !failedThroughout) return false;
  yield* disableEndpoint(endpoint, since, failure);
  return true;
}

/** Disables a failing endpoint, fails its pending deliveries, and says so in the audit log. */
function* disableEndpoint(endpoint: EndpointRow, since: number, failure: EndpointFailure): SqlProgram<void> {
  const project = str(endpoint.project);
  const id = str(endpoint.id);
  const reason = `failing since ${new Date(since).toISOString()}; last attempt: ${failure.error}`;
  yield op(
    'UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?, version = version + 1, updated_at = ? WHERE project = ? AND id = ?',
    reason, failure.now, project, id,
  );
  yield op(
    `UPDATE webhook_deliveries SET status = 'failed', next_at = NULL, lease_until = NULL,
     last_error = COALESCE(last_error, 'not sent: the endpoint was disabled') WHERE project = ? AND endpoint_id = ? AND status = 'pending'`,
    project, id,
  );
  const before = endpointView(endpoint);
  const after = { ...before, enabled: false, version: before.version + 1, updatedAt: iso(failure.now), failingSince: iso(since), disabledReason: reason };
  yield* appendAudit({
    project, at: failure.now, keyId: WEBHOOKS_ACTOR.id, action: 'disable', kind: 'webhook', name: id, before, after, actor: WEBHOOKS_ACTOR,
  });
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The endpoint as the management API shows it (never its secret): both sides of the audit entry. */
function endpointView(row: EndpointRow) {
  return {
    id: str(row.id),
    url: str(row.url),
    events: JSON.parse(str(row.events)) as string[],
    format: str(row.format),
    enabled: num(row.enabled) === 1,
    description: str(row.description),
    version: num(row.version),
    createdAt: iso(num(row.created_at)),
    updatedAt: iso(num(row.updated_at)),
    failingSince: row.failing_since === null ? null : iso(num(row.failing_since)),
    disabledReason: row.disabled_reason === null ? null : str(row.disabled_reason),
  };
}
