import { keySegment, quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { refuseJsonHazards } from '../http/json-hazards.js';
import { MAX_WEBHOOK_DESCRIPTION } from '../../wire/api/webhook-schema.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../wire/webhook-events.js';
import { checkWebhookUrl, type AddressPolicy } from './address-guard.js';
import type { EndpointFields } from './endpoint-store.js';

// An endpoint as a POST or PUT body gives it, checked whole before anything is stored: each problem answered as a 400
// `invalid_webhook` naming its field, the URL last (its host is resolved, the one check that waits on the network).

const FIELDS = ['url', 'events', 'format', 'enabled', 'description'];
const FORMATS = ['standard', 'slack'];
/** Longer URLs are refused by many servers and proxies; a webhook URL is an address, not a payload. */
const MAX_URL = 2048;

function invalid(field: string, problem: string): never {
  throw new ServiceError('invalid_webhook', `${field}: ${problem}`);
}

function eventsOf(value: unknown): WebhookEventType[] {
  const known = WEBHOOK_EVENT_TYPES.join(', ');
  if (!Array.isArray(value) || value.length === 0) invalid('events', `must be a non-empty list of event types: ${known}`);
  value.forEach((type: unknown, i) => {
    if (typeof type !== 'string' || !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type)) {
      invalid(`events[${i}]`, `${typeof type === 'string' ? quoted(type) : 'a non-string'} is not an event type; the types are ${known}`);
    }
    if (value.indexOf(type) !== i) invalid(`events[${i}]`, `${quoted(type)} is listed twice`);
  });
  return value as WebhookEventType[];
}

/**
 * The fields of an endpoint from a request body: `url` and `events` required, `format` (default `standard`),
 * `enabled` (default true), `description` (default empty); no other field.
 * @throws ServiceError `invalid_webhook` naming the field, for the first problem found.
 */
export async function endpointFields(body: unknown, policy: AddressPolicy): Promise<EndpointFields> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    invalid('body', 'must be a JSON object: {url, events, format?, enabled?, description?}');
  }
  refuseJsonHazards(body, 'invalid_webhook', '');
  const given = body as Record<string, unknown>;
  const unknown = Object.keys(given).find((field) => !FIELDS.includes(field));
  if (unknown !== undefined) invalid(keySegment(unknown).replace(/^\./, ''), `is not a field of a webhook endpoint (${FIELDS.join(', ')})`);
  const { url, format = 'standard', enabled = true, description = '' } = given;
  if (typeof url !== 'string' || url === '') invalid('url', 'is required: the https URL the events are sent to');
  if (url.length > MAX_URL) invalid('url', `must be at most ${MAX_URL} characters`);
  const events = eventsOf(given.events);
  if (typeof format !== 'string' || !FORMATS.includes(format)) invalid('format', `must be one of ${FORMATS.join(', ')}`);
  if (typeof enabled !== 'boolean') invalid('enabled', 'must be true or false');
  if (typeof description !== 'string' || description.length > MAX_WEBHOOK_DESCRIPTION) {
    invalid('description', `must be a text of at most ${MAX_WEBHOOK_DESCRIPTION} characters`);
  }
  await checkWebhookUrl(url, policy, 'url');
  return { url, events, format: format as EndpointFields['format'], enabled, description };
}
