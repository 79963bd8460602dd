import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { ApiError, type AdminApi } from './admin-api.js';
import { notify } from './admin-events.js';
import { adminStyles } from './admin-styles.js';
import { ApiView } from './api-view.js';
import { label } from './cell-label.js';
import { eventName, type WebhookDelivery } from './webhook.js';
import { webhookStyles } from './webhook-styles.js';
import { listDeliveries, resendDelivery } from './webhooks-api.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-webhook-deliveries': SvcAdminWebhookDeliveries;
  }
}

/** How often the log is read again while a delivery is about to be sent. */
const POLL_MS = 2000;
/** A pending delivery due within this long keeps the log reading itself again (a later retry waits for Refresh). */
const SOON_MS = 30_000;

const STATUS: Record<WebhookDelivery['status'], { text: string; badge: string }> = {
  pending: { text: 'Pending', badge: 'pending' },
  succeeded: { text: 'Succeeded', badge: 'running' },
  failed: { text: 'Failed', badge: 'delete' },
};

const none = html`<span class="muted">—</span>`;

/** A cell's classes: `blank` when it has nothing to say, which a phone's card leaves out. */
const blank = (value: unknown, classes = ''): string => `${classes}${value === null || value === undefined ? ' blank' : ''}`.trim();

/**
 * `<svc-admin-webhook-deliveries>`: an endpoint's delivery log, newest first: when each event was queued, its type, its
 * status in words, the last attempt's response code and latency, the attempts made, the next one and the last error,
 * with Resend per delivery done (the same message and `webhook-id` queued again). It reads itself again every two
 * seconds while a delivery is about to be sent, so a test event is seen arriving.
 *
 * @tagname svc-admin-webhook-deliveries
 * @summary A webhook endpoint's delivery log.
 *
 * @attr status - Reflected, read-only: `loading`, `ready`, `empty` or `error`.
 *
 * @fires svc-admin:notice - A delivery was queued again.
 */
export class SvcAdminWebhookDeliveries extends ApiView {
  static override styles = [adminStyles, webhookStyles];

  static override properties = {
    endpoint: {},
    name: {},
    deliveries: { state: true },
    busy: { state: true },
    actionError: { state: true },
  };

  /** The endpoint's id. */
  declare endpoint: string;
  /** The endpoint in words that tell it from the others (endpointName), which name the log. */
  declare name: string;
  declare deliveries: WebhookDelivery[];
  /** The delivery being queued again. */
  declare busy: number | undefined;
  /** Why the last Resend failed. */
  declare actionError: string | undefined;
  #poll: ReturnType<typeof setTimeout> | undefined;
  #time = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

  constructor() {
    super();
    this.endpoint = '';
    this.name = '';
    this.deliveries = [];
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.#poll);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // Another endpoint's log: read it (a new `api` reads it anyway).
    if (changed.has('endpoint') && !changed.has('api')) void this.reload();
    super.willUpdate(changed);
  }

  protected override async load(api: AdminApi, signal: AbortSignal): Promise<void> {
    clearTimeout(this.#poll);
    if (!this.endpoint) return;
    if (this.status === 'error' || !this.deliveries.length) this.status = 'loading';
    const deliveries = await listDeliveries(api, this.endpoint, signal);
    if (signal.aborted) return;
    this.deliveries = deliveries;
    this.error = undefined;
    this.status = deliveries.length ? 'ready' : 'empty';
    const soon = Date.now() + SOON_MS;
    if (deliveries.some((d) => d.status === 'pending' && (d.nextAttemptAt === null || Date.parse(d.nextAttemptAt) <= soon))) {
      this.#poll = setTimeout(() => void this.reload(), POLL_MS);
    }
  }

  override render() {
    return html`<div class="log">
      <div class="toolbar">
        <h4 id="log-title">Deliveries<span class="sr-only"> to ${this.name}</span></h4>
        <button type="button" class="small" data-action="refresh" @click=${() => void this.reload()}>Refresh<span class="sr-only"> deliveries</span></button>
      </div>
      ${this.actionError ? html`<div class="alert error" role="alert"><strong>Not queued again</strong>${this.actionError}</div>` : nothing}
      ${this.#body()}
    </div>`;
  }

  #body(): TemplateResult {
    if (this.status === 'loading') {
      return html`<div class="state small" role="status"><div class="spinner" aria-hidden="true"></div><p>Loading deliveries…</p></div>`;
    }
    if (this.status === 'error') {
      return html`<div class="alert error" role="alert"><strong>The deliveries could not be loaded</strong>${this.error?.message ?? ''}
        <div class="buttons"><button type="button" @click=${() => void this.reload()}>Try again</button></div></div>`;
    }
    if (this.status === 'empty') {
      return html`<div class="state small"><p>Nothing sent yet. Events the endpoint asked for show here as they happen; send a test
        event to see one now.</p></div>`;
    }
    return html`<div class="table-scroll" role="region" aria-labelledby="log-title" tabindex="0">
      <table class="cards deliveries">
        <caption class="sr-only">Latest deliveries, newest first</caption>
        <thead><tr>
          <th scope="col">Queued</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="num">Response</th>
          <th scope="col" class="num">Latency</th><th scope="col" class="num">Attempts</th><th scope="col">Next attempt</th>
          <th scope="col">Error</th><th scope="col"><span class="sr-only">Actions</span></th>
        </tr></thead>
        <tbody>${repeat(this.deliveries, (d) => d.id, (d) => this.#row(d))}</tbody>
      </table>
    </div>
    <p class="hint">${this.deliveries.length === 1 ? 'One delivery.' : `The latest ${this.deliveries.length} deliveries, newest first.`} A
      failed attempt is retried with growing pauses for 24 hours, then the delivery is given up.</p>`;
  }

  #row(d: WebhookDelivery): TemplateResult {
    const status = STATUS[d.status];
    const next = d.status === 'pending' ? d.nextAttemptAt : null;
    return html`<tr data-id=${d.id} data-status=${d.status}>
      <th scope="row">${this.#at(d.createdAt)}</th>
      <td>${label('Event')}<code>${eventName(d.type)}</code></td>
      <td>${label('Status')}<span class="badge ${status.badge}">${status.text}</span></td>
      <td class=${blank(d.responseStatus, 'num')}>${label('Response')}${d.responseStatus ?? none}</td>
      <td class=${blank(d.latencyMs, 'num')}>${label('Latency')}${d.latencyMs === null ? none : `${d.latencyMs.toLocaleString()} ms`}</td>
      <td class="num">${label('Attempts')}${d.attempts}</td>
      <td class=${blank(next, 'when')}>${label('Next attempt')}${next ? this.#at(next) : none}</td>
      <td class=${blank(d.error, 'error')}>${label('Error')}${d.error ? html`<span>${d.error}</span>` : none}</td>
      <td>${d.status === 'pending' ? nothing : html`<button type="button" class="small" data-action="resend" ?disabled=${this.busy === d.id}
        @click=${() => void this.#resend(d)}>Resend<span class="sr-only"> ${eventName(d.type)} of ${this.#time.format(new Date(d.createdAt))}</span></button>`}</td>
    </tr>`;
  }

  #at(iso: string): TemplateResult {
    return html`<time datetime=${iso}>${this.#time.format(new Date(iso))}</time>`;
  }

  async #resend(d: WebhookDelivery): Promise<void> {
    const api = this.api;
    if (!api) return;
    this.busy = d.id;
    this.actionError = undefined;
    try {
      await resendDelivery(api, this.endpoint, d.id);
      notify(this, `The ${eventName(d.type)} to ${this.name} is queued again.`);
    } catch (error) {
      this.actionError = error instanceof ApiError ? error.message : String(error);
    } finally {
      this.busy = undefined;
    }
    await this.reload();
  }
}
