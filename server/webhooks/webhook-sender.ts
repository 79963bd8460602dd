import { createHmac } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { ServiceError } from '../errors/service-error.js';
import { checkWebhookUrl, type CheckedTarget } from './address-guard.js';
import { slackMessage } from './slack-message.js';
import type { WebhookSettings } from './webhook-options.js';
import type { WebhookFormat, WebhookPayload } from '../../wire/webhook-events.js';

// One attempt of one delivery: the body built from the stored message (the same bytes on every attempt), signed as
// Standard Webhooks says, and POSTed to the one address the URL was checked to resolve to, just now: a name that
// resolved to a public address when the endpoint was written may resolve to 169.254.169.254 today (DNS rebinding),
// and the connection must go where the check looked, not where a second lookup would answer. Redirects are never
// followed (a 3xx is a failed attempt), and a few KB of the answer are read, then dropped.

/** How much of an answer is read before the connection is dropped: the status is all a delivery needs. */
const ANSWER_BYTES = 4096;

/** A message as stored: what the body of every attempt is built from. */
export interface StoredMessage {
  /** The `webhook-id` of every attempt, to every endpoint. */
  id: string;
  /** `org/project`. */
  project: string;
  type: WebhookPayload['type'];
  /** Epoch milliseconds: when the event happened. */
  at: number;
  /** The event's data as stored (JSON), without organization, project and link. */
  data: string;
  /** The console page, relative to the public URL. */
  path: string;
}

/** What an attempt sends to one endpoint. */
export interface WebhookRequest {
  url: string;
  /** The endpoint's `whsec_…` secret. */
  secret: string;
  messageId: string;
  body: string;
  userAgent: string;
}

/** How an attempt went. */
export interface AttemptOutcome {
  /** 2xx: delivered. */
  ok: boolean;
  /** The HTTP status answered; null when none was (address refused, connection failed, no answer in time). */
  status: number | null;
  /** From the address check to the end of the answer read. */
  latencyMs: number;
  /** Why it failed; null when delivered. */
  error: string | null;
}

/** The Standard Webhooks payload of a stored message: its data with the organization, project and console link. */
export function webhookPayload(message: StoredMessage, publicUrl: string): WebhookPayload {
  const [organization = '', project = ''] = message.project.split('/');
  const data = JSON.parse(message.data) as object;
  return {
    type: message.type,
    timestamp: new Date(message.at).toISOString(),
    data: { ...data, organization, project, url: `${publicUrl}${message.path}` },
  } as WebhookPayload;
}

/** The body an endpoint of `format` receives: the payload itself, or Slack's message made from it. */
export function webhookBody(format: WebhookFormat, message: StoredMessage, publicUrl: string): string {
  const payload = webhookPayload(message, publicUrl);
  return JSON.stringify(format === 'slack' ? slackMessage(payload) : payload);
}

/**
 * The `webhook-signature` header: `v1,` and the base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`, keyed by the
 * secret's bytes (base64 after `whsec_`).
 * @example signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')
 *          // → 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='
 */
export function signWebhook(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * Sends one attempt: checks the URL under `settings` (https, every address public unless loopback is allowed), then
 * POSTs the signed body to the address checked, within `settings.timeoutMs` in all. Never throws: a refusal, an error
 * or a timeout is a failed attempt, said in `error`.
 */
export async function sendWebhook(request: WebhookRequest, settings: WebhookSettings): Promise<AttemptOutcome> {
  const started = performance.now();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), settings.timeoutMs);
  const failed = (error: string, status: number | null = null): AttemptOutcome => ({
    ok: false, status, latencyMs: Math.round(performance.now() - started), error,
  });
  try {
    const target = await beforeDeadline(checkWebhookUrl(request.url, settings), deadline.signal);
    const status = await post(target, request, deadline.signal);
    if (status >= 200 && status < 300) return { ok: true, status, latencyMs: Math.round(performance.now() - started), error: null };
    return failed(status >= 300 && status < 400 ? `HTTP ${status}: redirects are not followed` : `HTTP ${status}`, status);
  } catch (error) {
    if (deadline.signal.aborted) return failed(`no answer within ${settings.timeoutMs} ms`);
    // The address guard's refusal names the field (`url: …`); the delivery log is about the URL already.
    if (error instanceof ServiceError) return failed(error.message.replace(/^url: /, ''));
    return failed(error instanceof Error ? error.message : String(error));
  } finally {
    clearTimeout(timer);
  }
}

/** `work`, or a rejection once `signal` aborts (a DNS lookup cannot be cancelled, only no longer waited for). */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const abort = (): void => reject(new Error('aborted'));
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** A lookup that answers the checked address whatever it is asked: the connection goes where the guard looked. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    // Later, as a resolver would: the request's error listener is attached by then.
    process.nextTick(() => (options.all ? callback(null, [{ address, family }]) : callback(null, address, family)));
  };
}

/** POSTs the signed body to the checked address; resolves to the answer's status once its first KB are read. */
function post(target: CheckedTarget, request: WebhookRequest, signal: AbortSignal): Promise<number> {
  const { url, address, family } = target;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const https = url.protocol === 'https:';
  // The timestamp receivers compare with their own clock (a replay window): this machine's, at this attempt.
  const timestamp = Math.floor(Date.now() / 1000);
  return new Promise((resolve, reject) => {
    const outgoing = (https ? httpsRequest : httpRequest)({
      method: 'POST',
      hostname,
      ...(url.port !== '' ? { port: Number(url.port) } : {}),
      path: `${url.pathname}${url.search}`,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(request.body),
        'user-agent': request.userAgent,
        'webhook-id': request.messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(request.secret, request.messageId, timestamp, request.body),
      },
      // A connection of its own (no pool, no keep-alive): every attempt connects through the lookup pinned here.
      agent: false,
      lookup: pinnedLookup(address, family),
      ...(https && isIP(hostname) === 0 ? { servername: hostname } : {}),
      signal,
    }, (answer) => {
      readSome(answer).then(() => (signal.aborted ? reject(new Error('aborted')) : resolve(answer.statusCode ?? 0)), reject);
    });
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** Reads the answer until its end or its first ANSWER_BYTES, then lets it go. */
function readSome(answer: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    let read = 0;
    answer.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read >= ANSWER_BYTES) answer.destroy();
    });
    answer.on('error', () => undefined);
    answer.on('close', resolve);
  });
}
