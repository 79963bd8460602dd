// A project's webhook endpoints and their deliveries: what the webhooks routes take and answer. The console's types
// are these schemas' (Static).
import Type, { type Static } from 'typebox';
import { WEBHOOK_EVENT_TYPES } from '../webhook-events.js';
import { Count, IsoTime, Nullable } from './schema-parts.js';

/** At most this many characters of description (the console shows it beside the URL). */
export const MAX_WEBHOOK_DESCRIPTION = 200;

const EventType = Type.Enum([...WEBHOOK_EVENT_TYPES]);
const Format = Type.Enum(['standard', 'slack'], {
  description: '`standard`: the Standard Webhooks JSON body, signed; `slack`: Slack\'s incoming-webhook message (text and blocks).',
});

export const WebhookBody = Type.Object({
  url: Type.String({ description: 'https, its host resolving only to public addresses (http and loopback only when the service allows them).' }),
  events: Type.Array(EventType, { minItems: 1, uniqueItems: true, description: 'The event types it receives.' }),
  format: Type.Optional(Format),
  enabled: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  description: Type.Optional(Type.String({ maxLength: MAX_WEBHOOK_DESCRIPTION })),
}, { additionalProperties: false });

export const WebhookEndpointSchema = Type.Object({
  id: Type.String({ description: '`ep_…`.' }),
  url: Type.String(),
  events: Type.Array(EventType),
  format: Format,
  enabled: Type.Boolean(),
  description: Type.String(),
  version: Type.Integer({ minimum: 1 }),
  createdAt: IsoTime(),
  updatedAt: IsoTime(),
  failingSince: Nullable(IsoTime(), { description: 'Since when its deliveries fail; null while they succeed.' }),
  disabledReason: Nullable(Type.String(), { description: 'Why the service disabled it (failing for 24 hours).' }),
}, { $id: 'WebhookEndpoint', description: 'An endpoint, never its secret.' });
export type WebhookEndpoint = Static<typeof WebhookEndpointSchema>;

export const CreatedWebhookSchema = Type.Intersect([WebhookEndpointSchema, Type.Object({
  secret: Type.String({ description: 'The signing secret (`whsec_…`), answered this once.' }),
})]);
export type CreatedWebhook = Static<typeof CreatedWebhookSchema>;

export const WebhookList = Type.Object({ webhooks: Type.Array(WebhookEndpointSchema, { description: 'Oldest first.' }) });

export const WebhookDeliverySchema = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  messageId: Type.String({ description: 'The `webhook-id` every attempt carries (`msg_…`).' }),
  type: Type.String({ description: 'The event type (`webhook.test` for a test).' }),
  status: Type.Enum(['pending', 'succeeded', 'failed']),
  attempts: Count(),
  createdAt: IsoTime('When it was queued (again, for a resend).'),
  lastAttemptAt: Nullable(IsoTime()),
  responseStatus: Nullable(Type.Integer(), { description: 'The last attempt\'s HTTP status; null without an answer.' }),
  latencyMs: Nullable(Count()),
  error: Nullable(Type.String(), { description: 'Why the last attempt failed, or why the delivery was given up.' }),
  nextAttemptAt: Nullable(IsoTime(), { description: 'When it is due, while pending.' }),
}, { $id: 'WebhookDelivery' });
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;

export const WebhookDeliveryList = Type.Object({ deliveries: Type.Array(WebhookDeliverySchema, { description: 'Newest first.' }) });

export const DeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'Default 50.' })),
  before: Type.Optional(Type.Integer({ minimum: 1, description: 'A delivery id: only older deliveries (the next page).' })),
});

export const TestAnswer = Type.Object({ messageId: Type.String(), deliveryId: Type.Integer({ minimum: 1 }) });

export const ResendAnswer = Type.Object({ deliveryId: Type.Integer({ minimum: 1 }) });
