// Webhook endpoints and queued messages as the tests of webhooks set them up and read them back: an endpoint row stored
// directly (as the management routes store one), and each queued message with its data and the endpoints it is
// queued for.
import { randomBytes } from 'node:crypto';
import { consolePath } from '../../../server/webhooks/webhook-outbox.js';
import { op } from '../../../server/storage/sql-program.js';
import type { Storage } from '../../../server/storage/storage.js';
import { WEBHOOK_EVENT_TYPES, type WebhookDataByType, type WebhookEventType, type WebhookFormat, type WebhookPayload } from '../../../wire/webhook-events.js';

export interface TestEndpoint {
  /** `org/project`. */
  project: string;
  id: string;
  /** Default every event type. */
  events?: readonly WebhookEventType[];
  /** Default true. */
  enabled?: boolean;
  format?: WebhookFormat;
  url?: string;
  at?: number;
}

/** Stores an endpoint row as the management routes would; answers its signing secret (`whsec_…`). */
export async function insertEndpoint(storage: Storage, endpoint: TestEndpoint): Promise<string> {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const at = endpoint.at ?? Date.now();
  await storage.transaction(function* () {
    yield op(
      `INSERT INTO webhook_endpoints (project, id, url, events, format, enabled, description, secret, version, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, '', ?, 1, ?, ?)`,
      endpoint.project, endpoint.id, endpoint.url ?? 'https://hooks.example.com/svc', JSON.stringify(endpoint.events ?? WEBHOOK_EVENT_TYPES),
      endpoint.format ?? 'standard', endpoint.enabled === false ? 0 : 1, secret, at, at,
    );
  });
  return secret;
}

/** A queued message: the event as stored, with the endpoints a delivery of it is queued for. */
export interface QueuedMessage<T extends WebhookEventType = WebhookEventType> {
  id: string;
  project: string;
  type: T;
  at: number;
  data: WebhookDataByType[T];
  path: string;
  dedupe: string | null;
  /** The endpoints it is queued for (their ids, sorted). */
  endpoints: string[];
  /** The message row and its deliveries as stored, as JSON: what a test scans for what must never be in it. */
  stored: string;
}

/** Every queued message of `project` (of `type`, when given), oldest first. */
export async function queuedMessages<T extends WebhookEventType>(storage: Storage, project: string, type?: T): Promise<QueuedMessage<T>[]> {
  return storage.run(function* () {
    const { rows } = yield op(
      `SELECT id, project, type, at, data, path, dedupe FROM webhook_messages WHERE project = ?${type === undefined ? '' : ' AND type = ?'} ORDER BY at, type, id`,
      ...(type === undefined ? [project] : [project, type]),
    );
    const messages: QueuedMessage<T>[] = [];
    for (const r of rows) {
      const deliveries = (yield op('SELECT * FROM webhook_deliveries WHERE message_id = ? ORDER BY endpoint_id', String(r.id))).rows;
      messages.push({
        id: String(r.id), project: String(r.project), type: String(r.type) as T, at: Number(r.at),
        data: JSON.parse(String(r.data)) as WebhookDataByType[T], path: String(r.path), dedupe: r.dedupe === null ? null : String(r.dedupe),
        endpoints: deliveries.map((d) => String(d.endpoint_id)),
        stored: JSON.stringify({ message: r, deliveries }),
      });
    }
    return messages;
  });
}

/** The Standard Webhooks body of a queued message, as a `standard` endpoint receives it (`publicUrl` the service's). */
export function payloadOf(message: QueuedMessage, publicUrl = 'http://localhost:8787'): WebhookPayload {
  const [organization = '', project = ''] = message.project.split('/');
  return {
    type: message.type,
    timestamp: new Date(message.at).toISOString(),
    data: { ...message.data, organization, project, url: `${publicUrl}${message.path}` },
  } as WebhookPayload;
}

/** The console path of an experiment's results, as payloads link to it. */
export function resultsPath(project: string, experience: string): string {
  return consolePath(project, `#/experiences/${encodeURIComponent(experience)}/results`);
}
