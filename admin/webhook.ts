// A project's webhooks as the console reads them: the endpoints and their deliveries are the management API's shapes
// (wire/api/webhook-schema.ts), the event types the service's own list (wire/webhook-events.ts), imported as types and
// one constant, so the console never drifts from what the service sends.
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT, type WebhookEventType, type WebhookFormat } from '../wire/webhook-events.js';
import type { Static } from 'typebox';
import type { CreatedWebhook, WebhookBody as WebhookBodySchema, WebhookDelivery, WebhookEndpoint } from '../wire/api/webhook-schema.js';
import { ApiError } from './api-error.js';

export type { CreatedWebhook, WebhookDelivery, WebhookEndpoint, WebhookEventType, WebhookFormat };
export { WEBHOOK_EVENT_TYPES };

/** An endpoint as a POST or PUT takes it. */
export type WebhookBody = Static<typeof WebhookBodySchema>;

/** Each event in a sentence, as the form's checkboxes say it. */
export const EVENT_LABELS: Readonly<Record<WebhookEventType, string>> = {
  'experiment.started': 'An experiment started',
  'experiment.stopped': 'An experiment stopped (by a person, a guardrail, an SRM or with a winner)',
  'experiment.phase_started': 'An experiment\'s split, traffic or audience changed (a new phase)',
  'experiment.srm_detected': 'A sample ratio mismatch was detected',
  'experiment.significant': 'A goal metric became significant for the first time in a phase',
  'bandit.reweighted': 'A bandit changed its weights',
  'privacy.request_done': 'A privacy request (export or erasure) finished',
  'feed.changed': 'A recommendation feed was created, changed or deleted',
};

/** The experiment events, which "Every experiment event" checks at once. */
export const EXPERIMENT_EVENTS: readonly WebhookEventType[] = WEBHOOK_EVENT_TYPES.filter((t) => t.startsWith('experiment.'));

export const FORMAT_LABELS: Readonly<Record<WebhookFormat, { label: string; hint: string }>> = {
  standard: { label: 'Standard Webhooks', hint: 'Signed JSON for your own receiver.' },
  slack: { label: 'Slack', hint: 'A message for a Slack incoming webhook (text and blocks).' },
};

/** A delivery's event type as its row says it: the test event by name, the others as sent. */
export const eventName = (type: string): string => (type === WEBHOOK_TEST_EVENT ? 'test event' : type);

/** The host of an endpoint's URL, which names it in its card; the whole URL when it does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * An endpoint in words that tell it from the others, for what is read out (buttons, the log's region, notices): its
 * host and description, or its host and path when it has none. Two Slack channels share a host, not a description.
 */
export function endpointName(e: Pick<WebhookEndpoint, 'url' | 'description'>): string {
  const host = hostOf(e.url);
  if (e.description) return `${host} (${e.description})`;
  try {
    const { pathname } = new URL(e.url);
    return pathname === '/' ? host : `${host}${pathname}`;
  } catch {
    return host;
  }
}

/** The form's fields the service may name in a refusal (`url: must be an https URL`). */
export type WebhookField = keyof WebhookBody;
const FIELDS: readonly string[] = ['url', 'events', 'format', 'enabled', 'description'];

/** A refusal of the form: the service's message and the field it begins with, if it names one of the form's. */
export interface WebhookFormError {
  field: WebhookField | undefined;
  message: string;
  code: string;
}

export function webhookFormError(error: unknown): WebhookFormError {
  const e = error instanceof ApiError ? error : new ApiError(0, 'unexpected', String(error));
  const named = /^([a-zA-Z]+)(?:\[\d+\])?:\s*/.exec(e.message);
  const field = e.status === 400 && named && FIELDS.includes(named[1]!) ? named[1] as WebhookField : undefined;
  // Said by the field, the message goes without its name, as a sentence: `The host "10.0.0.1" resolves to …`.
  const message = field ? e.message.slice(named![0].length) : e.message;
  return { field, message: field ? message.charAt(0).toUpperCase() + message.slice(1) : message, code: e.code };
}

/** The body of an endpoint as it is, to send back with one thing changed (enabled, for the toggle). */
export const bodyOf = (e: WebhookEndpoint): WebhookBody =>
  ({ url: e.url, events: [...e.events], format: e.format, enabled: e.enabled, description: e.description });
