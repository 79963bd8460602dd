import { lockingRows, op, type SqlProgram } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import { endpointFailed, endpointSucceeded, lockEndpoint } from './failing-endpoints.js';
import type { AttemptOutcome, StoredMessage } from './webhook-sender.js';
import { WEBHOOK_TEST_EVENT, type WebhookFormat } from '../../wire/webhook-events.js';

// The deliveries' queue as every node takes from it: a node leases the deliveries due (no other node takes them while
// its lease holds; one whose node died is taken again once the lease lapses, and sent again with the same webhook-id:
// at least once), sends each, and records each attempt in one transaction with what follows from it: delivered, or
// retried later with a backoff, or given up after `retryForMs`; and the endpoint's failing streak.

/** The longest wait between two attempts. */
const MAX_RETRY_DELAY_MS = 3_600_000;

/** A delivery this node leased, with what its attempt needs. */
export interface LeasedDelivery {
  id: number;
  project: string;
  endpointId: string;
  /** When it was queued (or queued again by a resend): its retries end `retryForMs` after. */
  createdAt: number;
  /** The lease this node holds: an attempt's result is the delivery's only while its lease is still this one. */
  leaseUntil: number;
  message: StoredMessage;
  endpoint: { url: string; format: WebhookFormat; secret: string };
}

/** How long deliveries are retried, and how soon. */
export interface RetryRules {
  retryForMs: number;
  firstRetryMs: number;
  /** A number in [0, 1) (Math.random): the jitter. */
  random: () => number;
}

/** What an attempt made of its delivery. */
export type AttemptResult = 'succeeded' | 'retrying' | 'failed' | 'superseded';

/** Whether a delivery is due by `now`: a read, so that a look finding nothing takes no write lock. */
export function* deliveryDue(now: number): SqlProgram<boolean> {
  const { rows } = yield op(
    "SELECT 1 AS due FROM webhook_deliveries WHERE status = 'pending' AND next_at <= ? AND (lease_until IS NULL OR lease_until < ?) LIMIT 1",
    now, now,
  );
  return rows.length > 0;
}

/**
 * Leases up to `limit` due deliveries, oldest due first, until `leaseUntil`; rows another node is leasing right now
 * are skipped. A delivery whose endpoint was deleted, or disabled (a test event excepted: it was asked for), or whose
 * message is gone, is failed here and not answered.
 */
export function* leaseDue(now: number, leaseUntil: number, limit: number): SqlProgram<LeasedDelivery[]> {
  const { rows: due } = yield lockingRows(op(
    `SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_at <= ? AND (lease_until IS NULL OR lease_until < ?)
     ORDER BY next_at, id LIMIT ?`,
    now, now, limit,
  ), 'skip');
  if (due.length === 0) return [];
  const ids = due.map((row) => num(row.id));
  const list = `(${ids.map(() => '?').join(', ')})`;
  yield op(`UPDATE webhook_deliveries SET lease_until = ? WHERE id IN ${list}`, leaseUntil, ...ids);
  const { rows } = yield op(
    `SELECT d.id, d.project, d.endpoint_id, d.created_at, d.message_id, m.type, m.at, m.data, m.path,
            e.url, e.format, e.secret, e.enabled
     FROM webhook_deliveries d
     LEFT JOIN webhook_messages m ON m.id = d.message_id
     LEFT JOIN webhook_endpoints e ON e.project = d.project AND e.id = d.endpoint_id
     WHERE d.id IN ${list} ORDER BY d.next_at, d.id`,
    ...ids,
  );
  const leased: LeasedDelivery[] = [];
  for (const row of rows) {
    const id = num(row.id);
    const unsendable = row.url === null ? 'the endpoint was deleted'
      : row.type === null ? 'the message no longer exists'
        : num(row.enabled) !== 1 && row.type !== WEBHOOK_TEST_EVENT ? 'the endpoint is disabled' : null;
    if (unsendable !== null) {
      yield op("UPDATE webhook_deliveries SET status = 'failed', next_at = NULL, lease_until = NULL, last_error = ? WHERE id = ?", `not sent: ${unsendable}`, id);
      continue;
    }
    leased.push({
      id,
      project: str(row.project),
      endpointId: str(row.endpoint_id),
      createdAt: num(row.created_at),
      leaseUntil,
      message: {
        id: str(row.message_id), project: str(row.project), type: str(row.type) as StoredMessage['type'], at: num(row.at),
        data: str(row.data), path: str(row.path),
      },
      endpoint: { url: str(row.url), format: str(row.format) as WebhookFormat, secret: str(row.secret) },
    });
  }
  return leased;
}

/**
 * The wait before the next attempt after the `failures`-th failed one in a row: `firstRetryMs` doubled each time, at
 * most an hour, with equal jitter (half of it fixed, half random) so that the deliveries of an endpoint that came
 * back do not all arrive at once.
 */
export function retryDelay(failures: number, rules: RetryRules): number {
  const base = Math.min(rules.firstRetryMs * 2 ** Math.max(0, failures - 1), MAX_RETRY_DELAY_MS);
  return Math.round(base / 2 + rules.random() * (base / 2));
}

/**
 * Records an attempt that began at `at` and what follows from it, at `now`: the attempt logged; delivered (2xx), or
 * due again after retryDelay, or given up once `retryForMs` passed since the delivery was queued; the endpoint's
 * failing streak (failing-endpoints.ts). When the delivery is no longer this node's lease (resent, deleted, or taken
 * over after the lease lapsed), the attempt is logged and its state left to whoever holds it now.
 */
export function* recordAttempt(
  delivery: LeasedDelivery, at: number, outcome: AttemptOutcome, now: number, rules: RetryRules,
): SqlProgram<AttemptResult> {
  const endpoint = yield* lockEndpoint(delivery.project, delivery.endpointId);
  const { rows } = yield lockingRows(op('SELECT attempts, status, lease_until, created_at FROM webhook_deliveries WHERE id = ?', delivery.id), 'wait');
  const row = rows[0];
  if (row === undefined) return 'superseded';
  const attempt = num(row.attempts) + 1;
  yield op(
    'INSERT INTO webhook_attempts (delivery_id, attempt, at, status, latency_ms, error) VALUES (?, ?, ?, ?, ?, ?)',
    delivery.id, attempt, at, outcome.status, outcome.latencyMs, outcome.error,
  );
  const last = [attempt, at, outcome.status, outcome.latencyMs, outcome.error] as const;
  const ours = row.status === 'pending' && row.lease_until !== null && num(row.lease_until) === delivery.leaseUntil;
  if (!ours) {
    yield op('UPDATE webhook_deliveries SET attempts = ?, last_at = ?, last_status = ?, last_latency_ms = ?, last_error = ? WHERE id = ?', ...last, delivery.id);
    return 'superseded';
  }
  if (outcome.ok) {
    yield op(
      `UPDATE webhook_deliveries SET status = 'succeeded', next_at = NULL, lease_until = NULL, attempts = ?, last_at = ?,
       last_status = ?, last_latency_ms = ?, last_error = ? WHERE id = ?`,
      ...last, delivery.id,
    );
    if (endpoint !== null) yield* endpointSucceeded(endpoint);
    return 'succeeded';
  }
  // The attempts since it was queued (a resend starts its backoff and its 24 hours over), this one included.
  const { rows: since } = yield op('SELECT COUNT(*) AS n, MIN(at) AS first FROM webhook_attempts WHERE delivery_id = ? AND at >= ?', delivery.id, num(row.created_at));
  const failures = Math.max(1, num(since[0]?.n ?? 0));
  const firstAt = since[0]?.first == null ? at : Math.min(at, num(since[0].first));
  const givenUp = now - num(row.created_at) >= rules.retryForMs;
  yield op(
    `UPDATE webhook_deliveries SET status = ?, next_at = ?, lease_until = NULL, attempts = ?, last_at = ?, last_status = ?,
     last_latency_ms = ?, last_error = ? WHERE id = ?`,
    givenUp ? 'failed' : 'pending', givenUp ? null : now + retryDelay(failures, rules), ...last, delivery.id,
  );
  if (endpoint !== null) {
    yield* endpointFailed(endpoint, { at, now, error: outcome.error ?? 'failed', retryForMs: rules.retryForMs, gaveUpSince: givenUp ? firstAt : null });
  }
  return givenUp ? 'failed' : 'retrying';
}
