import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { ApiError, type AdminApi } from './admin-api.js';
import { navigate, notify } from './admin-events.js';
import { adminStyles } from './admin-styles.js';
import { ApiView } from './api-view.js';
import { label } from './cell-label.js';
import type { SvcAdminConfirm } from './confirm-dialog.js';
import { editorStyles } from './editor-styles.js';
import { capText, DEFAULT_CUPED_DAYS, METRIC_TYPE_HINTS, METRIC_TYPES, type Metric } from './metric.js';
import {
  cappable, countsEvents, metricDraftErrors, metricDraftItem, metricDraftOf, type CapChoice, type MetricDraft, type MetricDraftErrors,
  type MetricField,
} from './metric-form.js';
import { metricsStyles } from './metrics-styles.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-metrics': SvcAdminMetrics;
  }
}

type TextField = 'name' | 'event' | 'value' | 'windowHours' | 'capValue' | 'cupedDays';
type Flag = 'inverse' | 'cuped' | 'ignoreZeros';
/** What a field's control carries so that its hint and its problem are read with it. */
type Described = { invalid: 'true' | typeof nothing; describedBy: string };

const CAPS: { cap: CapChoice; label: string }[] = [{ cap: 'none', label: 'None' }, { cap: 'absolute', label: 'At a value' }, { cap: 'percentile', label: 'At a percentile' }];

const failure = (error: unknown): ApiError => (error instanceof ApiError ? error : new ApiError(0, 'unexpected', String(error)));
const spinner = (text: string): TemplateResult => html`<div class="state" role="status"><div class="spinner" aria-hidden="true"></div><p>${text}</p></div>`;

/**
 * `<svc-admin-metrics>`: the project's metrics, what its experiments are judged by, as a table (type, what it counts,
 * window, direction, cap, CUPED, source, version) with Edit and Delete per row, and the form that creates or edits
 * one. The form checks what is plainly missing or not a number; every other rule is the service's, whose message is
 * shown as it names the field. A save or delete carries `If-Match` of the version read, so a change made meanwhile by
 * someone else is never overwritten; a metric a ratio or an experiment uses is not deleted and the page says which.
 *
 * @tagname svc-admin-metrics
 * @summary The console's metrics: list, create, edit, delete.
 *
 * @attr status - Reflected, read-only: the screen's `loading`, `ready`, `empty` (the list: no metric yet) or `error`.
 *
 * @fires svc-admin:notice - A metric was saved or deleted; `detail` says which.
 */
export class SvcAdminMetrics extends ApiView {
  static override styles = [adminStyles, editorStyles, metricsStyles];

  static override properties = {
    metrics: { state: true }, editing: { state: true }, loaded: { state: true }, draft: { state: true }, checked: { state: true },
    saving: { state: true }, formError: { state: true }, actionError: { state: true }, busy: { state: true }, readOnly: { type: Boolean },
    creating: { type: Boolean },
  };

  /** The signed-in key may only read (a viewer): no New, Edit or Delete. */ declare readOnly: boolean;
  /** The new-metric form is shown (the console's `#/metrics/new`); the page says when it opens or leaves it. */
  declare creating: boolean;
  declare metrics: Metric[];
  /** The form's metric: `undefined` shows the list, `null` a new metric. */
  declare editing: string | null | undefined;
  /** The metric as read for the form: its version goes in `If-Match`, the fields the form does not show are kept. */
  declare loaded: Metric | undefined;
  declare draft: MetricDraft;
  /** A save was tried: from then on the form shows every field's problem, not only the JSON's. */
  declare checked: boolean;
  declare saving: boolean;
  /** Why the form could not be saved. */
  declare formError: ApiError | undefined;
  /** Why the last delete from the list failed. */
  declare actionError: string | undefined;
  /** The metric being deleted. */
  declare busy: string | undefined;

  constructor() {
    super();
    this.metrics = [];
    this.draft = metricDraftOf();
    this.checked = false;
    this.saving = false;
    this.creating = false;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // The address named the new-metric form, or left it (Back): the page follows, and loads what it then shows.
    if (changed.has('creating') && (this.editing === null) !== this.creating) void this.#show(this.creating ? null : undefined);
    else super.willUpdate(changed);
  }

  /** Reads the list and the metric edited (its version and the form's draft); the status is the shown screen's. */
  protected override async load(api: AdminApi, signal: AbortSignal): Promise<void> {
    const editing = this.editing;
    if (editing || this.status === 'error' || !this.metrics.length) this.status = 'loading';
    const [metrics, loaded] = await Promise.all([api.metrics(signal), editing ? api.metric(editing, signal) : undefined]);
    if (signal.aborted) return;
    this.metrics = metrics;
    this.loaded = loaded;
    if (loaded) this.draft = metricDraftOf(loaded);
    this.error = undefined;
    this.status = editing !== undefined || metrics.length ? 'ready' : 'empty';
  }

  override render() {
    return html`${this.editing === undefined ? this.#list() : this.#editor(this.editing)}<svc-admin-confirm></svc-admin-confirm>`;
  }

  #list(): TemplateResult {
    return html`<div class="toolbar">
        <h1 tabindex="-1">Metrics</h1>
        <div class="buttons">
          <button type="button" @click=${() => void this.reload()}>Refresh</button>
          ${this.readOnly ? nothing : html`<button type="button" class="primary" @click=${() => void this.#show(null)}>New metric</button>`}
        </div>
      </div>
      ${this.actionError
        ? html`<div class="alert error action-error" role="alert"><strong>Not deleted</strong>${this.actionError}</div>` : nothing}
      ${this.#table()}`;
  }

  #table(): TemplateResult {
    if (this.status === 'loading') return spinner('Loading metrics…');
    if (this.status === 'error') {
      return html`<div class="alert error" role="alert"><strong>The metrics could not be loaded</strong>${this.error?.message ?? ''}
        <div class="buttons"><button type="button" @click=${() => void this.reload()}>Try again</button></div></div>`;
    }
    if (this.status === 'empty') {
      return html`<div class="state">
        <p>No metrics yet: a metric is what an experiment is judged by (a conversion, a count or sum of events, or a ratio of
          two metrics). Create one, then name it among an experiment's goals.</p>
        <button type="button" class="primary" @click=${() => void this.#show(null)}>Create a metric</button>
      </div>`;
    }
    return html`<div class="table-scroll" role="region" aria-labelledby="caption" tabindex="0">
      <table class="cards">
        <caption id="caption" class="sr-only">Metrics of the project</caption>
        <thead><tr>
          <th scope="col">Name</th><th scope="col">Type</th><th scope="col">Counts</th><th scope="col">Window</th>
          <th scope="col">Lower is better</th><th scope="col">Cap</th><th scope="col">CUPED</th><th scope="col">Source</th>
          <th scope="col" class="num">Version</th><th scope="col"><span class="sr-only">Actions</span></th>
        </tr></thead>
        <tbody>${repeat(this.metrics, (m) => m.name, (m) => this.#row(m))}</tbody>
      </table>
    </div>`;
  }

  #row(m: Metric): TemplateResult {
    const none = html`<span class="muted">—</span>`;
    const counts = m.type === 'ratio'
      ? html`${m.numerator} ÷ ${m.denominator}`
      : html`<code>${m.event}</code> ${m.type === 'sum' ? html`<div class="hint">sum of <code>${m.value}</code></div>` : nothing} ${m.where
        ? html`<div class="hint">where <code>${JSON.stringify(m.where)}</code></div>` : nothing}`;
    return html`<tr data-name=${m.name}>
      <th scope="row">${m.name}</th>
      <td>${label('Type')}${m.type}</td>
      <td class="what">${label('Counts')}<span>${counts}</span></td>
      <td>${label('Window')}${m.windowHours === undefined ? none : `${m.windowHours} h`}</td>
      <td>${label('Lower is better')}${m.inverse ? 'yes' : none}</td>
      <td>${label('Cap')}${m.cap ? capText(m.cap) : none}</td>
      <td>${label('CUPED')}${m.cuped ? `${m.cupedDays ?? DEFAULT_CUPED_DAYS} days` : none}</td>
      <td>${label('Source')}${m.source}</td>
      <td class="num">${label('Version')}${m.version}</td>
      <td class="wide"><div class="buttons" ?hidden=${this.readOnly}>
        <button type="button" class="small" data-action="edit" @click=${() => void this.#show(m.name)}>Edit<span class="sr-only"> ${m.name}</span></button>
        <button type="button" class="small danger" data-action="delete" ?disabled=${this.busy === m.name}
          @click=${() => void this.#delete(m)}>Delete…<span class="sr-only"> ${m.name}</span></button>
      </div></td>
    </tr>`;
  }

  #editor(name: string | null): TemplateResult {
    const body = this.status === 'loading'
      ? spinner('Loading…')
      : this.status === 'error'
        ? html`<div class="alert error" role="alert"><strong>${name === null ? 'The metrics' : 'The metric'} could not be loaded</strong>${this.error?.message ?? ''}
            <div class="buttons"><button type="button" @click=${() => void this.reload()}>Try again</button></div></div>`
        : this.#form(name === null);
    return html`<div class="toolbar">
        <h1 tabindex="-1">${name === null ? 'New metric' : html`Edit metric <code>${name}</code>`}</h1>
        <button type="button" @click=${() => void this.#show(undefined)}>Back to metrics</button>
      </div>${body}`;
  }

  #form(creating: boolean): TemplateResult {
    const d = this.draft;
    const loaded = this.loaded;
    const nameHint = creating
      ? 'Experiments name it among their goals, secondary metrics and guardrails; it cannot change later.'
      : `It cannot change. Version ${loaded?.version} · from ${loaded?.source === 'file' ? 'the config file' : 'the API'}.`;
    return html`<form novalidate @submit=${(e: SubmitEvent) => void this.#save(e)}>
      <section class="panel" aria-labelledby="what-title">
        <h2 id="what-title">What it measures</h2>
        <div class="name">${this.#input('name', 'Name', nameHint, { required: creating, readonly: !creating })}</div>
        <fieldset class="field">
          <legend>Type</legend>
          ${METRIC_TYPES.map((type) => html`<label class="choice">
            <input type="radio" name="type" value=${type} .checked=${d.type === type} @change=${() => this.#change({ type })}>
            <span>${type} <span class="muted">(${METRIC_TYPE_HINTS[type]})</span></span></label>`)}
        </fieldset>
        ${countsEvents(d.type) ? this.#eventFields(d) : this.#ratioFields(d)}
      </section>
      <section class="panel" aria-labelledby="reading-title">
        <h2 id="reading-title">How it is read</h2>
        <div class="grid">
          ${this.#flag('inverse', 'Lower is better', 'For refunds or load time: a variation wins by lowering it.')}
          ${this.#flag('cuped', 'CUPED', 'Narrower intervals, from each unit\'s value of this metric before its first exposure.')}
          ${d.cuped ? this.#input('cupedDays', 'CUPED look-back (days)', `Optional. 1–365; default ${DEFAULT_CUPED_DAYS}.`, { number: true }) : nothing}
        </div>
        ${cappable(d.type) ? this.#capFields(d) : nothing}
      </section>
      <div class="form-actions">
        ${this.#saveError()}
        <div class="buttons">
          <button type="submit" class="primary" ?disabled=${this.saving}>${this.saving ? 'Saving…' : creating ? 'Create metric' : 'Save'}</button>
          <button type="button" @click=${() => void this.#show(undefined)}>Cancel</button>
        </div>
      </div>
    </form>`;
  }

  #eventFields(d: MetricDraft): TemplateResult {
    return html`<div class="grid">
        ${this.#input('event', 'Event', 'The event\'s name exactly as tracked, e.g. Product ordered.', { required: true })}
        ${d.type === 'sum' ? this.#input('value', 'Value field', 'The numeric data field added up, e.g. price.', { required: true }) : nothing}
        ${this.#input('windowHours', 'Window (hours)', 'Optional. Only events within this many hours after a unit\'s first exposure.', { number: true })}
      </div>
      ${this.#field('where', 'Where (JSON)', 'Optional. A condition over the event\'s data, MongoDB-style, e.g. {"plan": "pro"} or '
        + '{"price": {"$gte": 10}}. Empty: every such event.', (a) => html`<textarea id="where" class="json" spellcheck="false" autocapitalize="off"
          .value=${d.where} aria-invalid=${a.invalid} aria-describedby=${a.describedBy}
          @input=${(e: Event) => this.#change({ where: (e.target as HTMLTextAreaElement).value })}></textarea>`)}`;
  }

  #ratioFields(d: MetricDraft): TemplateResult {
    const parts = this.metrics.filter((m) => m.type !== 'ratio' && m.name !== this.editing).map((m) => m.name);
    const select = (field: 'numerator' | 'denominator', title: string, hint: string): TemplateResult => {
      return this.#field(field, title, hint, (a) => html`<select id=${field} required aria-invalid=${a.invalid} aria-describedby=${a.describedBy}
          @change=${(e: Event) => this.#change({ [field]: (e.target as HTMLSelectElement).value })}>
          <option value="" ?selected=${!d[field]}>Choose a metric</option>
          ${parts.map((name) => html`<option .value=${name} ?selected=${d[field] === name}>${name}</option>`)}
        </select>`);
    };
    return html`<div class="grid">
        ${select('numerator', 'Numerator', 'The metric divided, e.g. revenue.')}
        ${select('denominator', 'Denominator', 'The metric it is divided by, e.g. orders.')}
      </div>
      ${parts.length ? nothing : html`<p class="hint">This project has no metric that counts events yet: create those first.</p>`}`;
  }

  #capFields(d: MetricDraft): TemplateResult {
    const absolute = d.cap === 'absolute';
    return html`<fieldset aria-describedby="cap-hint">
      <legend>Cap</legend>
      <div class="flags">${CAPS.map(({ cap, label: text }) => html`<label class="choice">
        <input type="radio" name="cap" value=${cap} .checked=${d.cap === cap} @change=${() => this.#change({ cap })}> ${text}</label>`)}</div>
      <p id="cap-hint" class="hint">Keeps a few heavy users from deciding the result: a unit counts with at most the cap.</p>
      ${d.cap === 'none' ? nothing : html`<div class="grid">
        ${this.#input('capValue', absolute ? 'Cap value' : 'Cap quantile', absolute
          ? 'The largest value a unit counts with, > 0.' : 'Between 0 and 1: 0.99 caps at the 99th percentile of the units.', { number: true, required: true })}
        ${absolute ? nothing : this.#flag('ignoreZeros', 'Ignore zeros', 'The percentile of the units whose value is not 0.')}
      </div>`}
    </fieldset>`;
  }

  /** A field: its label, its control, its hint and its problem, which the control is described by. */
  #field(field: MetricField, title: string, hint: string, control: (a: Described) => TemplateResult): TemplateResult {
    const error = this.#errors()[field];
    const a: Described = { invalid: error ? 'true' : nothing, describedBy: error ? `${field}-hint ${field}-error` : `${field}-hint` };
    return html`<div class="field">
      <label for=${field}>${title}</label>
      ${control(a)}
      <p id=${`${field}-hint`} class="hint">${hint}</p>
      ${error ? html`<p id=${`${field}-error`} class="field-error">${error}</p>` : nothing}
    </div>`;
  }

  #input(field: TextField, title: string, hint: string, { number = false, required = false, readonly = false } = {}): TemplateResult {
    // Text with a decimal keyboard, not type=number: what was typed reaches the check, which says it is not a number.
    return this.#field(field, title, hint, (a) => html`<input id=${field} type="text" inputmode=${number ? 'decimal' : nothing}
      ?required=${required} ?readonly=${readonly} spellcheck="false" autocapitalize="off" autocomplete="off" .value=${this.draft[field]}
      aria-invalid=${a.invalid} aria-describedby=${a.describedBy} @input=${(e: Event) => this.#change({ [field]: (e.target as HTMLInputElement).value })}>`);
  }

  #flag(field: Flag, title: string, hint: string): TemplateResult {
    return html`<div class="field">
      <div class="flags"><label class="choice"><input type="checkbox" id=${field} aria-describedby=${`${field}-hint`} .checked=${this.draft[field]}
        @change=${(e: Event) => this.#change({ [field]: (e.target as HTMLInputElement).checked })}> ${title}</label></div>
      <p id=${`${field}-hint`} class="hint">${hint}</p>
    </div>`;
  }

  /** The problems shown: JSON that does not parse at once, the rest once a save was tried. */
  #errors(): MetricDraftErrors {
    const errors = metricDraftErrors(this.draft, this.editing === null);
    if (this.formError?.code === 'metric_name_taken') errors.name = this.formError.message;
    return this.checked ? errors : errors.where ? { where: errors.where } : {};
  }

  #saveError(): TemplateResult | typeof nothing {
    const error = this.formError;
    // A name taken (but for its case) is said by the name field.
    if (!error || error.code === 'metric_name_taken') return nothing;
    if (error.code === 'version_conflict' && this.editing) {
      return html`<div class="alert error" role="alert" tabindex="-1">
        <strong>Someone else changed '${this.editing}' since you opened it</strong>
        Nothing was saved. Load their version to see it (your changes here are discarded), then make yours again.
        <div class="buttons"><button type="button" @click=${() => void this.#loadTheirs()}>Load their version</button></div>
      </div>`;
    }
    return html`<div class="alert error" role="alert" tabindex="-1"><strong>Not saved</strong>${error.message}</div>`;
  }

  #change(change: Partial<MetricDraft>): void {
    this.draft = { ...this.draft, ...change };
    if ('name' in change && this.formError?.code === 'metric_name_taken') this.formError = undefined;
  }

  /** Shows another screen: the form of a metric (`null`: a new one), or the list (`undefined`), its heading focused. */
  async #show(editing: string | null | undefined): Promise<void> {
    if ((editing === null) !== this.creating) {
      this.creating = editing === null;
      navigate(this, this.creating ? { name: 'metrics', new: true } : { name: 'metrics' });
    }
    this.editing = editing;
    this.loaded = undefined;
    this.draft = metricDraftOf();
    this.checked = false;
    this.formError = undefined;
    this.actionError = undefined;
    const loading = this.reload();
    await this.#focus('h1');
    await loading;
  }

  /** After a conflict: the form shows the metric as it is now (what was typed is discarded). */
  async #loadTheirs(): Promise<void> {
    await this.#show(this.editing);
    if (this.loaded) notify(this, `Loaded version ${this.loaded.version} of metric '${this.loaded.name}'.`);
  }

  /** Keyboard focus after the page changed under it: the button that had it is gone or disabled. */
  async #focus(selector: string): Promise<void> {
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>(selector)?.focus();
  }

  async #save(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const api = this.api;
    if (!api || this.saving) return;
    this.checked = true;
    if (Object.keys(metricDraftErrors(this.draft, this.editing === null)).length) return this.#focus('[aria-invalid="true"]');
    const item = metricDraftItem(this.draft, this.loaded);
    this.saving = true;
    this.formError = undefined;
    try {
      // A new metric is saved create-only (If-None-Match: *): one of the same name is refused, not replaced.
      const saved = await api.putMetric(item, this.loaded?.version);
      void this.#show(undefined);
      notify(this, `Metric '${saved.name}' saved (version ${saved.version}).`);
      return;
    } catch (error) {
      this.formError = failure(error);
    } finally {
      this.saving = false;
    }
    await this.#focus(this.formError?.code === 'metric_name_taken' ? '#name' : '.form-actions [role="alert"]');
  }

  /** Asks, then deletes the metric as listed if nobody changed it since; one in use stays, and the page says why. */
  async #delete(m: Metric): Promise<void> {
    const answer = await this.renderRoot.querySelector<SvcAdminConfirm>('svc-admin-confirm')!.ask({
      title: `Delete metric '${m.name}'?`,
      describe: () => `Experiments can no longer be judged by '${m.name}'${m.source === 'file'
        ? '; it stays hidden although the config file still has it.' : ' and it leaves the list. This cannot be undone.'}`,
      confirmLabel: () => 'Delete',
      danger: true,
    });
    const api = this.api;
    if (!answer || !api) return;
    this.busy = m.name;
    this.actionError = undefined;
    try {
      await api.deleteMetric(m.name, m.version);
      notify(this, `Metric '${m.name}' deleted.`);
    } catch (error) {
      const e = failure(error);
      this.actionError = e.code === 'version_conflict'
        ? `Someone else changed '${m.name}' since this list was loaded. The list now shows the current version: check it and try again.`
        : e.message;
    } finally {
      this.busy = undefined;
    }
    await this.reload();
    // A deleted row takes its Delete button along: focus goes to the heading. A refusal is read out (role=alert).
    if (!this.actionError) await this.#focus('h1');
  }
}
