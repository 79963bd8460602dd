import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { AdminApi } from './admin-api.js';
import { adminStyles } from './admin-styles.js';
import {
  bodyOf, EVENT_LABELS, EXPERIMENT_EVENTS, FORMAT_LABELS, WEBHOOK_EVENT_TYPES, webhookFormError, type CreatedWebhook, type WebhookBody,
  type WebhookEndpoint, type WebhookEventType, type WebhookField, type WebhookFormat, type WebhookFormError,
} from './webhook.js';
import { webhookStyles } from './webhook-styles.js';
import { createWebhook, getWebhook, saveWebhook } from './webhooks-api.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-webhook-form': SvcAdminWebhookForm;
  }
  interface GlobalEventHandlersEventMap {
    /** An endpoint was created (`detail` has its `secret`, this once) or saved. */
    'svc-admin-webhook:saved': CustomEvent<WebhookEndpoint | CreatedWebhook>;
    /** The edit was cancelled. */
    'svc-admin-webhook:cancel': CustomEvent<void>;
  }
}

/** What the form holds: an endpoint's body, every field set. */
type Draft = Required<WebhookBody>;

const FORMATS = Object.keys(FORMAT_LABELS) as WebhookFormat[];

const draftOf = (e?: WebhookEndpoint): Draft =>
  ({ url: '', events: [], format: 'standard', enabled: true, description: '', ...(e ? bodyOf(e) : {}) }) as Draft;

/**
 * `<svc-admin-webhook-form>`: the form of a new endpoint, or (with `endpoint`) of one to edit: its URL, description,
 * format, the events it asks for (each in a sentence, with "Every experiment event" to check them at once) and whether
 * it is enabled. It checks only what is plainly missing; the service's refusal shows by the field it names (`url: must
 * be an https URL`). An edit carries `If-Match` of the version it opened, so a change made meanwhile is never
 * overwritten: the form then offers to load that version.
 *
 * @tagname svc-admin-webhook-form
 * @summary The console's form of a webhook endpoint.
 *
 * @fires svc-admin-webhook:saved - Created (with its secret) or saved; `detail` is the service's answer.
 * @fires svc-admin-webhook:cancel - Cancel was chosen while editing.
 */
export class SvcAdminWebhookForm extends LitElement {
  static override styles = [adminStyles, webhookStyles];

  static override properties = {
    api: { attribute: false },
    endpoint: { attribute: false },
    draft: { state: true },
    saving: { state: true },
    error: { state: true },
  };

  declare api: AdminApi | undefined;
  /** The endpoint edited, as read: its version goes in `If-Match`. Unset: a new endpoint. */
  declare endpoint: WebhookEndpoint | undefined;
  declare draft: Draft;
  declare saving: boolean;
  /** Why the last save was refused, or what is plainly missing. */
  declare error: WebhookFormError | undefined;

  constructor() {
    super();
    this.draft = draftOf();
    this.saving = false;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('endpoint')) this.draft = draftOf(this.endpoint);
  }

  /** Focuses the field refused (the first box of the events), else the URL. */
  focusField(): void {
    const invalid = this.renderRoot.querySelector<HTMLElement>('[aria-invalid="true"]');
    const field = invalid?.matches('fieldset') ? invalid.querySelector<HTMLElement>('input') : invalid;
    (field ?? this.renderRoot.querySelector<HTMLElement>('#url'))?.focus();
  }

  override render() {
    const d = this.draft;
    const editing = this.endpoint !== undefined;
    return html`<form novalidate aria-label=${editing ? `Edit endpoint ${d.url}` : 'New endpoint'} @submit=${(e: SubmitEvent) => void this.#save(e)}>
      <div class="grid">
        ${this.#field('url', 'URL', 'https only. Addresses in private networks are refused.', (a) => html`<input id="url" type="url" required
          inputmode="url" autocomplete="off" spellcheck="false" .value=${d.url} aria-invalid=${a.invalid} aria-describedby=${a.describedBy}
          @input=${(e: Event) => this.#set({ url: (e.target as HTMLInputElement).value })}>`)}
        ${this.#field('description', 'Description (optional)', 'What it is for, e.g. #experiments in Slack.', (a) => html`<input id="description"
          maxlength="200" autocomplete="off" .value=${d.description} aria-invalid=${a.invalid} aria-describedby=${a.describedBy}
          @input=${(e: Event) => this.#set({ description: (e.target as HTMLInputElement).value })}>`)}
      </div>
      ${this.#formats()}
      ${this.#events()}
      <div class="field">
        <label class="choice"><input type="checkbox" id="enabled" .checked=${d.enabled} aria-describedby="enabled-hint"
          @change=${(e: Event) => this.#set({ enabled: (e.target as HTMLInputElement).checked })}> Enabled</label>
        <p id="enabled-hint" class="hint">A disabled endpoint gets nothing but the test events you send it.</p>
      </div>
      ${this.#formError()}
      <div class="buttons">
        <button type="submit" class="primary" ?disabled=${this.saving}>${this.saving ? 'Saving…' : editing ? 'Save' : 'Create endpoint'}</button>
        ${editing ? html`<button type="button" @click=${this.#cancel}>Cancel</button>` : nothing}
      </div>
    </form>`;
  }

  #formats(): TemplateResult {
    return html`<fieldset aria-describedby=${this.#errorOf('format') ? 'format-error' : nothing}>
      <legend>Format</legend>
      <div class="options">${FORMATS.map((format) => html`<label class="choice">
        <input type="radio" name="format" .value=${format} .checked=${this.draft.format === format} @change=${() => this.#set({ format })}>
        <span>${FORMAT_LABELS[format].label} <span class="muted">(${FORMAT_LABELS[format].hint})</span></span></label>`)}</div>
      ${this.#fieldError('format')}
    </fieldset>`;
  }

  #events(): TemplateResult {
    const chosen = new Set(this.draft.events);
    const experiments = EXPERIMENT_EVENTS.filter((t) => chosen.has(t)).length;
    const invalid = this.#errorOf('events');
    return html`<fieldset class="events" aria-invalid=${invalid ? 'true' : nothing}
      aria-describedby=${invalid ? 'events-hint events-error' : 'events-hint'}>
      <legend>Events</legend>
      <p id="events-hint" class="hint">What the endpoint is told about. A test event can be sent to it whatever it asks for.</p>
      <label class="choice all"><input type="checkbox" id="all-experiments" .checked=${experiments === EXPERIMENT_EVENTS.length}
        .indeterminate=${experiments > 0 && experiments < EXPERIMENT_EVENTS.length}
        @change=${(e: Event) => this.#toggle(EXPERIMENT_EVENTS, (e.target as HTMLInputElement).checked)}> Every experiment event</label>
      <div class="options">${WEBHOOK_EVENT_TYPES.map((type) => html`<label class="choice">
        <input type="checkbox" name="events" .value=${type} .checked=${chosen.has(type)}
          @change=${(e: Event) => this.#toggle([type], (e.target as HTMLInputElement).checked)}>
        <span>${EVENT_LABELS[type]} <code class="muted">${type}</code></span></label>`)}</div>
      ${this.#fieldError('events')}
    </fieldset>`;
  }

  /** A text field: its label, its control, its hint and its problem, which the control is described by. */
  #field(field: WebhookField, title: string, hint: string, control: (a: { invalid: 'true' | typeof nothing; describedBy: string }) => TemplateResult) {
    const invalid = this.#errorOf(field);
    return html`<div class="field">
      <label for=${field}>${title}</label>
      ${control({ invalid: invalid ? 'true' : nothing, describedBy: invalid ? `${field}-hint ${field}-error` : `${field}-hint` })}
      <p id=${`${field}-hint`} class="hint">${hint}</p>
      ${this.#fieldError(field)}
    </div>`;
  }

  #errorOf(field: WebhookField): boolean {
    return this.error?.field === field;
  }

  #fieldError(field: WebhookField): TemplateResult | typeof nothing {
    return this.#errorOf(field) ? html`<p id=${`${field}-error`} class="field-error" role="alert">${this.error!.message}</p>` : nothing;
  }

  /** A refusal that names no field of the form: a change made meanwhile, or anything else the service said. */
  #formError(): TemplateResult | typeof nothing {
    const error = this.error;
    if (!error || error.field) return nothing;
    if (error.code === 'version_conflict') {
      return html`<div class="alert error" role="alert"><strong>Someone else changed this endpoint since you opened it</strong>
        Nothing was saved. Load their version to see it (your changes here are discarded), then make yours again.
        <div class="buttons"><button type="button" @click=${() => void this.#loadTheirs()}>Load their version</button></div></div>`;
    }
    return html`<div class="alert error" role="alert"><strong>Not saved</strong>${error.message}</div>`;
  }

  #set(change: Partial<Draft>): void {
    this.draft = { ...this.draft, ...change };
    // What was said of a field stands until that field changes.
    if (this.error?.field && this.error.field in change) this.error = undefined;
  }

  #toggle(types: readonly WebhookEventType[], on: boolean): void {
    const events = new Set(this.draft.events);
    for (const type of types) on ? events.add(type) : events.delete(type);
    // In the service's order, whatever order they were checked in.
    this.#set({ events: WEBHOOK_EVENT_TYPES.filter((t) => events.has(t)) });
  }

  /** What is plainly missing, said by its field before anything is sent. */
  #missing(): WebhookFormError | undefined {
    if (!this.draft.url.trim()) return { field: 'url', message: 'Enter the URL the events are sent to.', code: 'missing' };
    if (!this.draft.events.length) return { field: 'events', message: 'Choose at least one event.', code: 'missing' };
    return undefined;
  }

  async #save(e: SubmitEvent): Promise<void> {
    e.preventDefault();
    const api = this.api;
    if (!api || this.saving) return;
    this.error = this.#missing();
    if (!this.error) {
      const body: WebhookBody = { ...this.draft, url: this.draft.url.trim(), description: this.draft.description.trim() };
      this.saving = true;
      try {
        const endpoint = this.endpoint;
        const saved = endpoint ? await saveWebhook(api, endpoint.id, body, endpoint.version) : await createWebhook(api, body);
        if (!endpoint) this.draft = draftOf();
        this.dispatchEvent(new CustomEvent('svc-admin-webhook:saved', { detail: saved }));
        return;
      } catch (error) {
        this.error = webhookFormError(error);
      } finally {
        this.saving = false;
      }
    }
    // The refusal is read out (role=alert); the focus goes where it is to be fixed.
    await this.updateComplete;
    if (this.error?.field) this.focusField();
  }

  async #loadTheirs(): Promise<void> {
    const api = this.api;
    const endpoint = this.endpoint;
    if (!api || !endpoint) return;
    try {
      this.endpoint = await getWebhook(api, endpoint.id);
      this.error = undefined;
    } catch (error) {
      this.error = webhookFormError(error);
    }
  }

  #cancel = (): void => {
    this.dispatchEvent(new CustomEvent('svc-admin-webhook:cancel'));
  };
}
