import { PolledQueue } from '../jobs/polled-queue.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { Storage } from '../storage/storage.js';
import type { AppendAudit } from './endpoint-store.js';
import { WEBHOOKS_CHANNEL } from './webhook-outbox.js';
import type { WebhookSettings } from './webhook-options.js';
import { deliveryDue, leaseDue, recordAttempt, type LeasedDelivery, type RetryRules } from './webhook-queue.js';
import { sendWebhook, webhookBody } from './webhook-sender.js';

/** Most attempts this node has under way at once: a slow or dead receiver holds one of them, not the whole queue. */
const CONCURRENT_SENDS = 8;

export interface WebhookDispatcherDeps {
  storage: Storage;
  webhooks: WebhookSettings;
  metrics: ServiceMetrics;
  now: () => number;
  /** The audit log's writer (management's), for an endpoint the service disables. */
  audit: AppendAudit;
}

export interface WebhookDispatcherOptions {
  /** The `user-agent` of every attempt (`svc-webhooks/<version>`). */
  userAgent: string;
  logger?: { warn(obj: object, msg: string): void };
}

/**
 * Sends the webhooks' queue, on every node: every `pollMs` (and at once when PostgreSQL tells of a delivery queued on
 * any node) it leases the deliveries due, up to CONCURRENT_SENDS under way, sends each, and records each attempt
 * (webhook-queue.ts). Leases keep two nodes from sending one delivery; a node that dies mid-send leaves its lease to
 * lapse, and the delivery is sent again by whichever node looks next, with the same webhook-id.
 * @example const dispatcher = new WebhookDispatcher(ctx, { userAgent: 'svc-webhooks/1.0.0' }); dispatcher.start();
 */
export class WebhookDispatcher {
  readonly #sending = new Set<Promise<void>>();
  /** Wakes the sending under way from its wait for an attempt to end: something may be due (a look, a notification). */
  #wake: () => void = () => undefined;
  readonly #queue = new PolledQueue(() => this.#sendDue(), () => this.#wake());
  #stopListening: (() => Promise<void>) | null = null;
  #listening = false;

  constructor(private readonly deps: WebhookDispatcherDeps, private readonly options: WebhookDispatcherOptions) {}

  /** Sends from now on, unless this node does not send webhooks (`deliver: false`). */
  start(): void {
    if (this.deps.webhooks.deliver) this.#queue.start(this.deps.webhooks.pollMs);
  }

  /** Sends what is due now (joining the sending under way, which then looks again). Resolves when nothing is due. */
  kick(): Promise<void> {
    return this.#queue.kick();
  }

  /** Takes no more deliveries; waits for the attempts under way to be sent and recorded (each at most `timeoutMs`). */
  async close(): Promise<void> {
    await this.#queue.close();
    await this.#stopListening?.();
  }

  /** Leases and sends until nothing is due, keeping up to CONCURRENT_SENDS attempts under way. */
  async #sendDue(): Promise<void> {
    for (;;) {
      const free = CONCURRENT_SENDS - this.#sending.size;
      const leased = free > 0 && !this.#queue.closed ? await this.#lease(free) : [];
      for (const delivery of leased) {
        const sending: Promise<void> = this.#deliver(delivery).finally(() => this.#sending.delete(sending));
        this.#sending.add(sending);
      }
      // Listening once there is something to send: a node whose projects have no webhooks holds no connection for it.
      if (leased.length > 0) await this.#listen();
      if (this.#sending.size === 0) return;
      await Promise.race([...this.#sending, new Promise<void>((resolve) => { this.#wake = resolve; })]);
    }
  }

  async #lease(limit: number): Promise<LeasedDelivery[]> {
    const { storage, webhooks } = this.deps;
    const now = this.deps.now();
    try {
      // Looked at first by a read: on SQLite a transaction takes the file's write lock, which a look finding nothing
      // (most of them) need not wait for.
      if (!(await storage.run(() => deliveryDue(now)))) return [];
      return await storage.transaction(() => leaseDue(now, now + webhooks.leaseMs, limit));
    } catch (error) {
      this.options.logger?.warn({ error: String(error) }, 'cannot read the webhooks\' queue; the next look retries');
      return [];
    }
  }

  /** One attempt of a leased delivery, recorded. Never throws: what fails stays leased, and is taken again after. */
  async #deliver(delivery: LeasedDelivery): Promise<void> {
    const { storage, webhooks, metrics } = this.deps;
    try {
      const at = this.deps.now();
      const outcome = await sendWebhook({
        url: delivery.endpoint.url,
        secret: delivery.endpoint.secret,
        messageId: delivery.message.id,
        body: webhookBody(delivery.endpoint.format, delivery.message, webhooks.publicUrl),
        userAgent: this.options.userAgent,
      }, webhooks);
      const rules: RetryRules = { retryForMs: webhooks.retryForMs, firstRetryMs: webhooks.firstRetryMs, random: Math.random };
      const result = await storage.transaction(() => recordAttempt(delivery, at, outcome, this.deps.now(), rules, this.deps.audit));
      metrics.webhookAttempts.inc({ result });
    } catch (error) {
      this.options.logger?.warn({ error: String(error), delivery: delivery.id }, 'webhook attempt not recorded; sent again once its lease lapses');
    }
  }

  /**
   * Where the storage tells of commits (PostgreSQL), a delivery queued on any node is sent at once, not at the next
   * look. Elsewhere, polling alone.
   */
  async #listen(): Promise<void> {
    const { storage } = this.deps;
    if (this.#listening || this.#queue.closed || storage.listen === undefined) return;
    try {
      this.#stopListening = await storage.listen(WEBHOOKS_CHANNEL, () => void this.kick(), () => {
        this.#listening = false;
      });
      this.#listening = true;
    } catch {
      // Polling carries on; the next look listens again.
    }
  }
}
