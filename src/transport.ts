import type { ResolvedConfig } from './config.js';
import { clean } from './clean.js';
import { trackUrl } from './endpoint-urls.js';
import type { ServiceEvent } from '../wire/event.js';

/** What became of one request, and so of the events it carried. */
export type SendOutcome =
  | { kind: 'ok' }
  /** Network error, timeout, 408, 429, 5xx: keep the events and try again later. */
  | { kind: 'retry'; status: number; retryAfterMs?: number }
  /** 413: the batch is too large for the service; send it in halves. */
  | { kind: 'split' }
  /** Any other 4xx: the service will never take this batch; drop it and say so. */
  | { kind: 'drop'; status: number; message: string };

export type Send = (events: ServiceEvent[], options: { keepalive: boolean; signal?: AbortSignal }) => Promise<SendOutcome>;

export const REQUEST_TIMEOUT_MS = 10_000;

/** `Retry-After` is either delta-seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Maps a response status to what the outbox does with the events it carried. */
export function classify(status: number, retryAfter: string | null, message: string): SendOutcome {
  if (status >= 200 && status < 300) return { kind: 'ok' };
  if (status === 413) return { kind: 'split' };
  if (status === 408 || status === 429 || status >= 500 || status === 0) {
    return clean({ kind: 'retry', status, retryAfterMs: parseRetryAfter(retryAfter) });
  }
  return { kind: 'drop', status, message };
}

/**
 * POSTs a batch to the track endpoint with the write key as Basic credentials. The body is JSON
 * (`{batch, sentAt}`, sentAt the device clock at sending) sent as `text/plain`, which the service accepts; it never
 * throws.
 */
export function createSender(config: ResolvedConfig, timeoutMs = REQUEST_TIMEOUT_MS): Send {
  const url = trackUrl(config);
  return async (events, { keepalive, signal }) => {
    const controller = new AbortController();
    const abort = (): void => controller.abort();
    signal?.addEventListener('abort', abort);
    const timer = setTimeout(abort, timeoutMs);
    try {
      const response = await fetch(url, {
        method: 'POST',
        keepalive,
        signal: controller.signal,
        headers: { Authorization: config.authorization, 'Content-Type': 'text/plain;charset=UTF-8' },
        // sentAt lets the service correct event times for this device's clock skew.
        body: JSON.stringify({ batch: events, sentAt: new Date().toISOString() }),
      });
      const message = response.ok ? '' : await errorMessage(response);
      return classify(response.status, response.headers.get('Retry-After'), message);
    } catch {
      return { kind: 'retry', status: 0 };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    }
  };
}

async function errorMessage(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') return body.error.message;
  } catch {
    // not our JSON error body
  }
  return `HTTP ${response.status}`;
}
