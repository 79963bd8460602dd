import { randomBytes } from 'node:crypto';
import { notify, op, type SqlProgram } from '../storage/sql-program.js';
import type { WebhookDataByType } from '../../wire/webhook-events.js';

// The one way an event enters the webhooks' queue: inside the transaction of the change it reports (a management
// write, a privacy request's last step) or of a watch's finding, so an event is queued exactly when its change commits.
// The message is stored once; a delivery is queued for each enabled endpoint of the project that asked for its type.

/** The channel a queued delivery is told on at its commit (PostgreSQL): every node's dispatcher sends it at once. */
export const WEBHOOKS_CHANNEL = 'svc_webhooks';

/** One event to send: its type, data (without the organization, project and link, added when sent) and console page. */
export interface WebhookEvent<T extends keyof WebhookDataByType = keyof WebhookDataByType> {
  /** `org/project`. */
  project: string;
  type: T;
  data: WebhookDataByType[T];
  /** Epoch milliseconds: when it happened. */
  at: number;
  /** The console page of the item, relative to the service's public URL (consolePath). */
  path: string;
  /** An event found by a watch: at most one message per project and key, whichever node finds it first. */
  dedupe?: string;
}

/** A message id as Standard Webhooks suggests (`msg_` and a random part): the `webhook-id` of every attempt. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/**
 * The console page of an item for a project, relative to the service's public URL: the console opens the project
 * from the query and the screen from the fragment.
 * @example consolePath('acme/shop', '#/experiences/hero/results') // → '/admin/?organization=acme&project=shop#/experiences/hero/results'
 */
export function consolePath(project: string, fragment: string): string {
  const [org = '', name = ''] = project.split('/');
  return `/admin/?${new URLSearchParams({ organization: org, project: name }).toString()}${fragment}`;
}

/**
 * Queues `event` for every enabled endpoint of its project that asked for its type (none: the message is not stored).
 * Answers the message id, or null when nothing was queued (no endpoint wants it, or `dedupe` was queued before).
 */
export function* emitWebhookEvent(event: WebhookEvent): SqlProgram<string | null> {
  const { rows } = yield op('SELECT id, events FROM webhook_endpoints WHERE project = ? AND enabled = 1 ORDER BY id', event.project);
  const endpoints = rows.filter((r) => (JSON.parse(String(r.events)) as string[]).includes(event.type)).map((r) => String(r.id));
  if (endpoints.length === 0) return null;
  const id = yield* storeMessage(event);
  if (id !== null) for (const endpoint of endpoints) yield* queueDelivery(event.project, endpoint, id, event.at);
  return id;
}

/** Stores the message of `event` (no delivery yet); answers its id, or null when its `dedupe` key was stored before. */
export function* storeMessage(event: WebhookEvent): SqlProgram<string | null> {
  const id = newMessageId();
  const stored = yield op(
    `INSERT INTO webhook_messages (id, project, type, at, data, path, dedupe) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT DO NOTHING`,
    id, event.project, event.type, event.at, JSON.stringify(event.data), event.path, event.dedupe ?? null,
  );
  return stored.changes === 0 ? null : id;
}

/** Queues one message for one endpoint, due now; a resend queues it again, its 24 hours of retries starting over. */
export function* queueDelivery(project: string, endpointId: string, messageId: string, at: number): SqlProgram<void> {
  yield op(
    `INSERT INTO webhook_deliveries (project, endpoint_id, message_id, status, attempts, created_at, next_at)
     VALUES (?, ?, ?, 'pending', 0, ?, ?)
     ON CONFLICT (message_id, endpoint_id) DO UPDATE SET status = 'pending', created_at = excluded.created_at, next_at = excluded.next_at, lease_until = NULL`,
    project, endpointId, messageId, at, at,
  );
  yield notify(WEBHOOKS_CHANNEL);
}
