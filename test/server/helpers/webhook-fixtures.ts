// What the webhook tests set up and read back: endpoints written straight into storage (as the management API stores
// them), events queued through the outbox in a transaction of their own, and the queue's rows read back.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { op, type SqlValue } from '../../../server/storage/sql-program.js';
import { num, str } from '../../../server/storage/sql-values.js';
import type { Storage } from '../../../server/storage/storage.js';
import { consolePath, emitWebhookEvent } from '../../../server/webhooks/webhook-outbox.js';
import type { WebhookFormat } from '../../../wire/webhook-events.js';

export interface TestEndpoint {
  project: string;
  id: string;
  secret: string;
}

/** A Standard Webhooks secret as the service makes one: `whsec_` and 24 random bytes in base64. */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** Stores an endpoint of `acme/shop` (unless told) asking for `feed.changed` (unless told); answers it with its secret. */
export async function insertEndpoint(storage: Storage, fields: {
  url: string; format?: WebhookFormat; events?: string[]; enabled?: boolean; project?: string;
}): Promise<TestEndpoint> {
  const endpoint = { project: fields.project ?? 'acme/shop', id: `ep_${randomBytes(8).toString('hex')}`, secret: newSecret() };
  const at = Date.now();
  await storage.transaction(function* () {
    yield op(
      `INSERT INTO webhook_endpoints (project, id, url, events, format, enabled, description, secret, version, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, '', ?, 1, ?, ?)`,
      endpoint.project, endpoint.id, fields.url, JSON.stringify(fields.events ?? ['feed.changed']), fields.format ?? 'standard',
      fields.enabled === false ? 0 : 1, endpoint.secret, at, at,
    );
  });
  return endpoint;
}

/** A `feed.changed` event of `acme/shop` queued in a transaction of its own; answers its message id. */
export async function emitFeedChanged(storage: Storage, feed: string, at = Date.now()): Promise<string> {
  const id = await storage.transaction(() => emitWebhookEvent({
    project: 'acme/shop', type: 'feed.changed', at, path: consolePath('acme/shop', `#/feeds/${feed}`),
    data: { feed, action: 'created', by: { type: 'key', name: 'srv1' } },
  }));
  assert.ok(id !== null, 'an endpoint asked for feed.changed');
  return id;
}

function rows(storage: Storage, sql: string, ...params: SqlValue[]) {
  return storage.run(function* () {
    return (yield op(sql, ...params)).rows;
  });
}

export interface DeliveryRow {
  id: number;
  messageId: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
}

/** An endpoint's deliveries, oldest first. */
export async function deliveriesOf(storage: Storage, endpoint: TestEndpoint): Promise<DeliveryRow[]> {
  const found = await rows(storage, `SELECT id, message_id, status, attempts, last_status, last_error FROM webhook_deliveries
    WHERE project = ? AND endpoint_id = ? ORDER BY id`, endpoint.project, endpoint.id);
  return found.map((r) => ({
    id: num(r.id), messageId: str(r.message_id), status: str(r.status), attempts: num(r.attempts),
    lastStatus: r.last_status === null ? null : num(r.last_status), lastError: r.last_error === null ? null : str(r.last_error),
  }));
}

/** A delivery's attempts in order: each one's number, HTTP status and error. */
export async function attemptsOf(storage: Storage, deliveryId: number): Promise<{ attempt: number; status: number | null; error: string | null }[]> {
  const found = await rows(storage, 'SELECT attempt, status, error FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt', deliveryId);
  return found.map((r) => ({ attempt: num(r.attempt), status: r.status === null ? null : num(r.status), error: r.error === null ? null : str(r.error) }));
}

/** The endpoint's row as stored (null once deleted). */
export async function endpointRow(storage: Storage, endpoint: TestEndpoint) {
  const [row] = await rows(storage, 'SELECT enabled, version, failing_since, disabled_reason FROM webhook_endpoints WHERE project = ? AND id = ?', endpoint.project, endpoint.id);
  if (row === undefined) return null;
  return {
    enabled: num(row.enabled) === 1, version: num(row.version),
    failingSince: row.failing_since === null ? null : num(row.failing_since),
    disabledReason: row.disabled_reason === null ? null : str(row.disabled_reason),
  };
}

/** The audit entries of an endpoint, newest first. */
export async function endpointAudit(storage: Storage, endpoint: TestEndpoint) {
  const found = await rows(storage, `SELECT action, kind, key_id, before_item, after_item, actor FROM audit_log
    WHERE project = ? AND kind = 'webhook' AND name = ? ORDER BY id DESC`, endpoint.project, endpoint.id);
  return found.map((r) => ({
    action: str(r.action), kind: str(r.kind), keyId: str(r.key_id),
    before: JSON.parse(str(r.before_item)) as Record<string, unknown>, after: JSON.parse(str(r.after_item)) as Record<string, unknown>,
    actor: JSON.parse(str(r.actor)) as Record<string, unknown>,
  }));
}

/** Reads until `ok` holds (a delivery is sent by the dispatcher's own rhythm), boundedly. */
export async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  for (let tries = 0; ; tries++) {
    const value = await read();
    if (ok(value)) return value;
    if (tries >= 1500) assert.fail(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
