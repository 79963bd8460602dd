// One endpoint of the webhooks page: its host as the heading, the whole URL under it, whether it is enabled (and, when
// the service disabled it or it is failing, since when and why), its format and events, and what can be done with it.
import { html, nothing, type TemplateResult } from 'lit';
import type { AdminApi } from './admin-api.js';
import { endpointName, EVENT_LABELS, FORMAT_LABELS, hostOf, WEBHOOK_EVENT_TYPES, type WebhookEndpoint } from './webhook.js';

/** What a card calls. */
export interface CardActions {
  edit: (e: WebhookEndpoint) => void;
  toggle: (e: WebhookEndpoint) => void;
  test: (e: WebhookEndpoint) => void;
  log: (e: WebhookEndpoint) => void;
  remove: (e: WebhookEndpoint) => void;
  saved: (e: CustomEvent<WebhookEndpoint>) => void;
  cancel: () => void;
}

/** What a card shows besides its endpoint. */
export interface CardState {
  api: AdminApi;
  editing: boolean;
  /** The delivery log is open. */
  log: boolean;
  busy: boolean;
  /** Why the last action on it failed. */
  error: string | undefined;
  time: Intl.DateTimeFormat;
}

/** The state in a word, never in colour only: enabled, failing, disabled by someone, or by the service. */
function state(e: WebhookEndpoint): TemplateResult {
  if (!e.enabled) return html`<span class="badge ${e.disabledReason ? 'delete' : ''}">${e.disabledReason ? 'Disabled by the service' : 'Disabled'}</span>`;
  return e.failingSince ? html`<span class="badge stopped">Enabled, failing</span>` : html`<span class="badge running">Enabled</span>`;
}

/** Why the service disabled it, or that it will unless its receiver answers again. */
function failing(e: WebhookEndpoint, time: Intl.DateTimeFormat): TemplateResult | typeof nothing {
  const since = e.failingSince ? html`<time datetime=${e.failingSince}>${time.format(new Date(e.failingSince))}</time>` : undefined;
  if (!e.enabled && e.disabledReason) {
    return html`<div class="alert error"><strong>The service disabled this endpoint${since ? html`: it had failed since ${since}` : nothing}</strong>
      <p>The service's reason: ${e.disabledReason}</p>
      <p>Fix the receiver, send a test event to check it, then enable the endpoint again.</p></div>`;
  }
  if (e.enabled && since) {
    return html`<div class="alert warning"><strong>Deliveries have failed since ${since}</strong>
      After 24 hours of failures the service disables the endpoint. The delivery log says what the receiver answered.</div>`;
  }
  return nothing;
}

function events(e: WebhookEndpoint): TemplateResult {
  if (e.events.length === WEBHOOK_EVENT_TYPES.length) return html`<span>every event</span>`;
  return html`<ul class="chips">${e.events.map((t) => html`<li title=${EVENT_LABELS[t]}><code>${t}</code></li>`)}</ul>`;
}

export function endpointCard(e: WebhookEndpoint, s: CardState, a: CardActions): TemplateResult {
  const host = hostOf(e.url);
  const name = endpointName(e);
  const title = `endpoint-${e.id}`;
  return html`<li class="endpoint" data-id=${e.id} aria-labelledby=${title}>
    <div class="head">
      <h3 id=${title} tabindex="-1">${host}</h3>
      ${state(e)}
    </div>
    <p class="url mono">${e.url}</p>
    ${e.description ? html`<p class="description">${e.description}</p>` : nothing}
    ${failing(e, s.time)}
    ${s.editing
      ? html`<svc-admin-webhook-form .api=${s.api} .endpoint=${e} @svc-admin-webhook:saved=${a.saved}
          @svc-admin-webhook:cancel=${a.cancel}></svc-admin-webhook-form>`
      : html`<dl class="facts">
          <div><dt>Format</dt><dd>${FORMAT_LABELS[e.format].label}</dd></div>
          <div class="wide"><dt>Events</dt><dd>${events(e)}</dd></div>
          <div><dt>Changed</dt><dd><time datetime=${e.updatedAt}>${s.time.format(new Date(e.updatedAt))}</time>
            <span class="muted">(version ${e.version})</span></dd></div>
        </dl>`}
    ${s.error ? html`<div class="alert error" role="alert"><strong>Not done</strong>${s.error}</div>` : nothing}
    <div class="buttons" ?hidden=${s.editing}>
      <button type="button" class="small" data-action="edit" ?disabled=${s.busy} @click=${() => a.edit(e)}>Edit<span class="sr-only"> ${name}</span></button>
      <button type="button" class="small" data-action="toggle" ?disabled=${s.busy}
        @click=${() => a.toggle(e)}>${e.enabled ? 'Disable' : 'Enable'}<span class="sr-only"> ${name}</span></button>
      <button type="button" class="small" data-action="test" ?disabled=${s.busy}
        @click=${() => a.test(e)}>Send test event<span class="sr-only"> to ${name}</span></button>
      <button type="button" class="small" data-action="log" aria-expanded=${s.log ? 'true' : 'false'} aria-controls=${`log-${e.id}`}
        @click=${() => a.log(e)}>Delivery log<span class="sr-only"> of ${name}</span></button>
      <button type="button" class="small danger" data-action="delete" ?disabled=${s.busy}
        @click=${() => a.remove(e)}>Delete…<span class="sr-only"> ${name}</span></button>
    </div>
    <div id=${`log-${e.id}`}>${s.log
      ? html`<svc-admin-webhook-deliveries .api=${s.api} endpoint=${e.id} name=${name}></svc-admin-webhook-deliveries>` : nothing}</div>
  </li>`;
}
