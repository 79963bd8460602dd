// The project's webhooks over the management API (`/v1/{org}/projects/{project}/webhooks`), admins only: a webhook's
// URL can itself be a secret (Slack's are). Each call goes through the console's AdminApi, so it carries the session,
// the CSRF token and `If-Match`, and rejects with an ApiError.
import type { AdminApi } from './admin-api.js';
import type { CreatedWebhook, WebhookBody, WebhookDelivery, WebhookEndpoint } from './webhook.js';

const path = (id: string, rest = ''): string => `webhooks/${encodeURIComponent(id)}${rest}`;

/** The project's endpoints, oldest first, without their secrets. */
export async function listWebhooks(api: AdminApi, signal?: AbortSignal): Promise<WebhookEndpoint[]> {
  return (await api.projectRequest<{ webhooks: WebhookEndpoint[] }>('webhooks', { signal })).webhooks;
}

/** One endpoint as it is now (its version, for an edit that was refused because it changed meanwhile). */
export function getWebhook(api: AdminApi, id: string, signal?: AbortSignal): Promise<WebhookEndpoint> {
  return api.projectRequest<WebhookEndpoint>(path(id), { signal });
}

/** Creates an endpoint; the answer's `secret` (`whsec_…`) is the signing secret, which the service never shows again. */
export function createWebhook(api: AdminApi, body: WebhookBody): Promise<CreatedWebhook> {
  return api.projectRequest<CreatedWebhook>('webhooks', { method: 'POST', body });
}

/** Replaces an endpoint's settings if it is still at `version` (else 412 `version_conflict`); its secret stays. */
export function saveWebhook(api: AdminApi, id: string, body: WebhookBody, version: number): Promise<WebhookEndpoint> {
  return api.projectRequest<WebhookEndpoint>(path(id), { method: 'PUT', body, version });
}

/** Deletes an endpoint if it is still at `version`; its pending deliveries are given up. */
export async function deleteWebhook(api: AdminApi, id: string, version: number): Promise<void> {
  await api.projectRequest<void>(path(id), { method: 'DELETE', version });
}

/** An endpoint's latest deliveries, newest first. */
export async function listDeliveries(api: AdminApi, id: string, signal?: AbortSignal, limit = 50): Promise<WebhookDelivery[]> {
  return (await api.projectRequest<{ deliveries: WebhookDelivery[] }>(path(id, `/deliveries?limit=${limit}`), { signal })).deliveries;
}

/** Queues a `webhook.test` event to this endpoint only, enabled or not. */
export function sendTestEvent(api: AdminApi, id: string): Promise<{ messageId: string; deliveryId: number }> {
  return api.projectRequest(path(id, '/test'), { method: 'POST', body: {} });
}

/** Queues a delivery again: the same message and `webhook-id`, its 24 hours of retries starting over. */
export function resendDelivery(api: AdminApi, id: string, deliveryId: number): Promise<{ deliveryId: number }> {
  return api.projectRequest(path(id, `/deliveries/${deliveryId}/resend`), { method: 'POST', body: {} });
}
