// Queued webhook messages as the tests of webhooks read them back: each with its data and the endpoints it is queued
// for (endpoints are stored by webhook-fixtures.ts).
import { consolePath } from '../../../server/webhooks/webhook-outbox.js';
import { op } from '../../../server/storage/sql-program.js';
import type { Storage } from '../../../server/storage/storage.js';
import type { WebhookDataByType, WebhookEventType, WebhookPayload } from '../../../wire/webhook-events.js';

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
