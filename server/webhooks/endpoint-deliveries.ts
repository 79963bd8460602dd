import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { op, type SqlProgram, type SqlRow } from '../storage/sql-program.js';
import { num } from '../storage/sql-values.js';
import type { WebhookDelivery } from '../../wire/api/webhook-schema.js';
import { WEBHOOK_TEST_EVENT } from '../../wire/webhook-events.js';
import { consolePath, queueDelivery, storeMessage } from './webhook-outbox.js';

// What an endpoint's admin sees of its deliveries and asks of them: the log (newest first, a page at a time), a test
// event sent to it alone, and a delivery sent again.

/** What the test event says, so a receiver's owner recognises it. */
const TEST_MESSAGE = 'A test event from svc: this endpoint is reachable and verifies signatures.';

const iso = (value: unknown): string | null => (value == null ? null : new Date(num(value)).toISOString());
const numOrNull = (value: unknown): number | null => (value == null ? null : num(value));

function deliveryView(row: SqlRow): WebhookDelivery {
  const status = String(row.status) as WebhookDelivery['status'];
  return {
    id: num(row.id),
    messageId: String(row.message_id),
    type: String(row.type),
    status,
    attempts: num(row.attempts),
    createdAt: iso(row.created_at)!,
    lastAttemptAt: iso(row.last_at),
    responseStatus: numOrNull(row.last_status),
    latencyMs: numOrNull(row.last_latency_ms),
    error: row.last_error == null ? null : String(row.last_error),
    nextAttemptAt: status === 'pending' ? iso(row.next_at) : null,
  };
}

/** An endpoint's deliveries, newest first: at most `limit`, older than the delivery `before` when given. */
export function* listDeliveries(project: string, endpointId: string, limit: number, before?: number): SqlProgram<WebhookDelivery[]> {
  const { rows } = yield op(
    `SELECT d.id, d.message_id, m.type, d.status, d.attempts, d.created_at, d.last_at, d.last_status, d.last_latency_ms, d.last_error, d.next_at
     FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
     WHERE d.project = ? AND d.endpoint_id = ? AND d.id < ?
     ORDER BY d.id DESC LIMIT ?`,
    project, endpointId, before ?? Number.MAX_SAFE_INTEGER, limit,
  );
  return rows.map(deliveryView);
}

function* deliveryId(messageId: string, endpointId: string): SqlProgram<number> {
  const { rows } = yield op('SELECT id FROM webhook_deliveries WHERE message_id = ? AND endpoint_id = ?', messageId, endpointId);
  return num(rows[0]!.id);
}

/**
 * Queues a `webhook.test` event to one endpoint alone, whatever events it asked for and even disabled: a test is asked
 * for by name.
 */
export function* queueTestEvent(project: string, endpointId: string, at: number): SqlProgram<{ messageId: string; deliveryId: number }> {
  // No dedupe key: a message is stored every time.
  const messageId = (yield* storeMessage({
    project, type: WEBHOOK_TEST_EVENT, at, path: consolePath(project, '#/webhooks'), data: { endpoint: endpointId, message: TEST_MESSAGE },
  }))!;
  yield* queueDelivery(project, endpointId, messageId, at);
  return { messageId, deliveryId: yield* deliveryId(messageId, endpointId) };
}

/**
 * Queues one of the endpoint's deliveries again: the same message (the same `webhook-id`), due now, its retries
 * starting over.
 * @throws ServiceError `webhook_not_found` when the delivery is not the endpoint's.
 */
export function* resendDelivery(project: string, endpointId: string, id: number, at: number): SqlProgram<void> {
  const { rows } = yield op('SELECT message_id FROM webhook_deliveries WHERE id = ? AND project = ? AND endpoint_id = ?', id, project, endpointId);
  if (!rows[0]) throw new ServiceError('webhook_not_found', `The webhook endpoint ${quoted(endpointId)} has no delivery ${id}.`);
  yield* queueDelivery(project, endpointId, String(rows[0].message_id), at);
}
