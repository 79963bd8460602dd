import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { ApiError, type AdminApi } from './admin-api.js';
import { notify } from './admin-events.js';
import { adminStyles } from './admin-styles.js';
import { ApiView } from './api-view.js';
import type { SvcAdminConfirm } from './confirm-dialog.js';
import { copyText, secretBox, secretStyles } from './secret-box.js';
import { bodyOf, endpointName, type CreatedWebhook, type WebhookEndpoint } from './webhook.js';
import { endpointCard } from './webhook-card.js';
import type { SvcAdminWebhookDeliveries } from './webhook-deliveries.js';
import type { SvcAdminWebhookForm } from './webhook-form.js';
import { webhookStyles } from './webhook-styles.js';
import { deleteWebhook, listWebhooks, saveWebhook, sendTestEvent } from './webhooks-api.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-webhooks': SvcAdminWebhooks;
  }
}

const failure = (error: unknown): ApiError => (error instanceof ApiError ? error : new ApiError(0, 'unexpected', String(error)));

/** A refusal of a card's action, in words: a change made meanwhile says what to do. */
const actionMessage = (error: unknown): string => {
  const e = failure(error);
  return e.code === 'version_conflict'
    ? 'Someone else changed this endpoint since the list was loaded. The list now shows the current version: check it and try again.'
    : e.message;
};

/**
 * `<svc-admin-webhooks>`: the project's webhook endpoints (admins). Each shows its host and URL, whether it is enabled
 * (and why the service disabled it), its format and events, with Edit, Enable/Disable, Send test event, its delivery
 * log and Delete (confirmed); a form below creates one. A new endpoint's signing secret shows once, in a box with a
 * Copy button, held only in the element's state and forgotten when dismissed or when the element leaves the page.
 * Every write carries `If-Match` of the version read, so a change made meanwhile by someone else is never overwritten.
 *
 * @tagname svc-admin-webhooks
 * @summary The console's webhooks: endpoints, their secret once, test events and delivery logs.
 *
 * @attr status - Reflected, read-only: `loading`, `ready`, `empty` (no endpoint yet) or `error`.
 *
 * @fires svc-admin:notice - An endpoint was created, saved, enabled, disabled or deleted, or a test event queued.
 */
export class SvcAdminWebhooks extends ApiView {
  static override styles = [adminStyles, webhookStyles, secretStyles];

  static override properties = {
    endpoints: { state: true },
    editing: { state: true },
    logs: { state: true },
    busy: { state: true },
    failed: { state: true },
    created: { state: true },
    copied: { state: true },
  };

  declare endpoints: WebhookEndpoint[];
  /** The endpoint whose form is open in its card. */
  declare editing: string | undefined;
  /** The endpoints whose delivery log is open. */
  declare logs: ReadonlySet<string>;
  /** The endpoint an action is being sent for. */
  declare busy: string | undefined;
  /** Why the last action on an endpoint failed, by its id. */
  declare failed: { id: string; message: string } | undefined;
  /** The endpoint just created, its secret shown until dismissed. Never reflected, stored or logged. */
  declare created: CreatedWebhook | undefined;
  /** What copying the secret did: a sentence to read out, or empty. */
  declare copied: string;
  #time = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

  constructor() {
    super();
    this.endpoints = [];
    this.logs = new Set();
    this.copied = '';
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    // Navigating away takes the secret along: coming back never shows it again.
    this.#forgetSecret();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // Another session (or signing out) must not see the last one's secret.
    if (changed.has('api') && changed.get('api') !== undefined) this.#forgetSecret();
    super.willUpdate(changed);
  }

  protected override async load(api: AdminApi, signal: AbortSignal): Promise<void> {
    if (this.status === 'error' || !this.endpoints.length) this.status = 'loading';
    const endpoints = await listWebhooks(api, signal);
    if (signal.aborted) return;
    this.endpoints = endpoints;
    this.error = undefined;
    this.status = endpoints.length ? 'ready' : 'empty';
  }

  override render() {
    return html`
      <div class="toolbar">
        <h1 tabindex="-1">Webhooks</h1>
        <button type="button" @click=${() => void this.#refresh()}>Refresh</button>
      </div>
      <p class="hint intro">Tell your systems and your team's chat when an experiment starts, stops, changes, drifts or wins, when a
        privacy request is done or a feed changes. Each request is signed as Standard Webhooks describes.</p>
      ${this.#secretBox()}
      <section aria-labelledby="endpoints-title">
        <h2 id="endpoints-title" tabindex="-1">Endpoints</h2>
        ${this.#list()}
      </section>
      <section class="new" aria-labelledby="new-title">
        <h2 id="new-title">New endpoint</h2>
        <svc-admin-webhook-form .api=${this.api} @svc-admin-webhook:saved=${(e: CustomEvent<CreatedWebhook>) => void this.#created(e.detail)}>
        </svc-admin-webhook-form>
      </section>
      <svc-admin-confirm></svc-admin-confirm>
    `;
  }

  #list(): TemplateResult {
    if (this.status === 'loading') {
      return html`<div class="state" role="status"><div class="spinner" aria-hidden="true"></div><p>Loading the endpoints…</p></div>`;
    }
    if (this.status === 'error') {
      return html`<div class="alert error" role="alert"><strong>The endpoints could not be loaded</strong>${this.error?.message ?? ''}
        <div class="buttons"><button type="button" @click=${() => void this.reload()}>Try again</button></div></div>`;
    }
    if (this.status === 'empty') {
      return html`<div class="state"><p>No endpoints yet. Add one below: a URL of your own receiver, or a Slack incoming webhook, and
        the events it should hear about.</p></div>`;
    }
    const api = this.api!;
    return html`<ul class="endpoints">${repeat(this.endpoints, (e) => e.id, (e) => endpointCard(e, {
      api, editing: this.editing === e.id, log: this.logs.has(e.id), busy: this.busy === e.id,
      error: this.failed?.id === e.id ? this.failed.message : undefined, time: this.#time,
    }, {
      edit: (endpoint) => void this.#edit(endpoint.id),
      toggle: (endpoint) => void this.#toggle(endpoint),
      test: (endpoint) => void this.#test(endpoint),
      log: (endpoint) => this.#showLog(endpoint.id, !this.logs.has(endpoint.id)),
      remove: (endpoint) => void this.#delete(endpoint),
      saved: (event) => void this.#saved(event.detail),
      cancel: () => void this.#edit(undefined),
    }))}</ul>`;
  }

  /** Reads the endpoints again, and the delivery logs that are open. */
  async #refresh(): Promise<void> {
    const logs = [...this.renderRoot.querySelectorAll<SvcAdminWebhookDeliveries>('svc-admin-webhook-deliveries')];
    await Promise.all([this.reload(), ...logs.map((log) => log.reload())]);
  }

  /** The new endpoint's secret, this once, with how a receiver uses it. Text only: it never goes into an attribute. */
  #secretBox(): TemplateResult | typeof nothing {
    const created = this.created;
    if (!created) return nothing;
    return secretBox({
      kind: 'webhook', title: `Signing secret of ${endpointName(created)}`, secret: created.secret,
      note: 'Copy it now and give it to your receiver: it is not shown again. The receiver checks each request\'s '
        + 'webhook-signature header with it, as Standard Webhooks describes (its libraries do it in one call).',
      copyLabel: 'Copy secret', copied: this.copied,
      copy: () => void this.#copy(created.secret), dismiss: () => void this.#dismiss(),
    });
  }

  async #created(created: CreatedWebhook): Promise<void> {
    this.#forgetSecret();
    this.created = created;
    notify(this, `Endpoint ${endpointName(created)} created.`);
    await this.reload();
    await this.#focus('.secret button[data-action="copy"]');
  }

  async #copy(secret: string): Promise<void> {
    this.copied = await copyText(secret, 'secret');
  }

  async #dismiss(): Promise<void> {
    this.#forgetSecret();
    await this.#focus('#endpoints-title');
  }

  #forgetSecret(): void {
    this.created = undefined;
    this.copied = '';
  }

  /** Opens an endpoint's form in its card (or closes it: `undefined`), focusing the form or the card's heading. */
  async #edit(id: string | undefined): Promise<void> {
    const closed = this.editing;
    this.editing = id;
    this.failed = undefined;
    await this.updateComplete;
    if (id) {
      const form = this.renderRoot.querySelector<SvcAdminWebhookForm>(`li[data-id="${CSS.escape(id)}"] svc-admin-webhook-form`);
      await form?.updateComplete;
      form?.focusField();
    } else if (closed) await this.#focus(`#endpoint-${CSS.escape(closed)}`);
  }

  async #saved(endpoint: WebhookEndpoint): Promise<void> {
    notify(this, `Endpoint ${endpointName(endpoint)} saved.`);
    await this.reload();
    await this.#edit(undefined);
  }

  async #toggle(e: WebhookEndpoint): Promise<void> {
    const enabled = !e.enabled;
    await this.#act(e, async (api) => {
      await saveWebhook(api, e.id, { ...bodyOf(e), enabled }, e.version);
      notify(this, `Endpoint ${endpointName(e)} ${enabled ? 'enabled' : 'disabled'}.`);
    });
  }

  async #test(e: WebhookEndpoint): Promise<void> {
    await this.#act(e, async (api) => {
      await sendTestEvent(api, e.id);
      notify(this, `Test event queued to ${endpointName(e)}.`);
      // Its log shows it arrive: opened if it was closed, read again if it was open.
      if (this.logs.has(e.id)) await this.renderRoot.querySelector<SvcAdminWebhookDeliveries>(`#log-${CSS.escape(e.id)} svc-admin-webhook-deliveries`)?.reload();
      else this.#showLog(e.id, true);
    });
  }

  #showLog(id: string, open: boolean): void {
    const logs = new Set(this.logs);
    if (open) logs.add(id);
    else logs.delete(id);
    this.logs = logs;
  }

  async #delete(e: WebhookEndpoint): Promise<void> {
    const name = endpointName(e);
    const answer = await this.renderRoot.querySelector<SvcAdminConfirm>('svc-admin-confirm')!.ask({
      title: `Delete the endpoint ${name}?`,
      describe: () => `${e.url} gets no more events, and the deliveries still pending to it are given up. This cannot be undone.`,
      confirmLabel: () => 'Delete',
      danger: true,
    });
    if (!answer) return;
    const deleted = await this.#act(e, async (api) => {
      await deleteWebhook(api, e.id, e.version);
      notify(this, `Endpoint ${name} deleted.`);
    });
    // The card took its Delete button along: focus goes to the list's heading. A refusal is read out (role=alert).
    if (deleted) await this.#focus('#endpoints-title');
  }

  /** Runs a card's action, then reads the list again; a refusal shows in the card. True when it was done. */
  async #act(e: WebhookEndpoint, action: (api: AdminApi) => Promise<void>): Promise<boolean> {
    const api = this.api;
    if (!api) return false;
    this.busy = e.id;
    this.failed = undefined;
    let done = false;
    try {
      await action(api);
      done = true;
    } catch (error) {
      this.failed = { id: e.id, message: actionMessage(error) };
    } finally {
      this.busy = undefined;
    }
    await this.reload();
    return done;
  }

  async #focus(selector: string): Promise<void> {
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>(selector)?.focus();
  }
}
