import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { AdminApi, ApiError } from './admin-api.js';
import { navigate } from './admin-events.js';
import { adminStyles } from './admin-styles.js';
import { ApiView } from './api-view.js';
import { confirmDelete, reloadTheirs, runChange } from './editor-changes.js';
import { editorStyles } from './editor-styles.js';
import { DEVICES, itemOf, type Experience, type ExperienceKind, type Feed } from './experience.js';
import { analysisFields } from './experience-analysis.js';
import {
  blockedReason, devicesHint, draftErrors, draftItem, draftOf, formatSum, variationDraft, weightsValid, weightSum, type ExperienceDraft,
  type VariationDraft,
} from './experience-form.js';
import { feedFields } from './experience-feed-fields.js';
import { metricsFields, type MetricChoice } from './experience-metrics-panel.js';
import { phaseChangesOf, phaseNoticeView } from './phase-change.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-editor': SvcAdminEditor;
  }
}

export type EditorState = 'loading' | 'ready' | 'error';

const KINDS: { kind: ExperienceKind; label: string; hint: string }[] = [
  { kind: 'experiment', label: 'Experiment', hint: 'variations with weights' },
  { kind: 'content', label: 'Content', hint: 'one body for everyone' },
  { kind: 'feed', label: 'Feed', hint: 'recommendations from a feed' },
];

/**
 * `<svc-admin-editor experience="hero">`: creates (without `experience`) or edits one experience, and for an
 * experiment how its results are read (significance level, sequential intervals, multiple-comparison correction; a new
 * experiment starts with sequential intervals). JSON that does not parse and weights that do not sum to 100 are shown
 * as typed and keep Save off; every other rule is the service's, whose message is shown as it names the field. A save carries `If-Match` of the version loaded, so a change made
 * meanwhile by someone else is never overwritten: the editor says so and offers to load it. New experiences are
 * created as drafts.
 *
 * @tagname svc-admin-editor
 * @summary The console's experience editor.
 *
 * @attr experience - The experience to edit; empty: a new one.
 * @attr status - Reflected, read-only: `loading`, `ready` or `error` (it could not be loaded).
 *
 * @fires svc-admin:navigate - Back to the list, after a save or delete or on Cancel.
 * @fires svc-admin:notice - Saved or deleted; `detail` says which version.
 */
export class SvcAdminEditor extends ApiView {
  static override styles = [adminStyles, editorStyles];

  static override properties = {
    experience: {},
    draft: { state: true },
    loaded: { state: true },
    feeds: { state: true },
    saving: { state: true },
    saveError: { state: true },
    rerandomize: { state: true },
  };

  declare experience: string;
  declare status: EditorState;
  declare draft: ExperienceDraft;
  /** The experience as loaded (editing): its version goes in `If-Match`, its other fields are kept. */
  declare loaded: Experience | undefined;
  declare feeds: Feed[];
  /** The project's metrics, for the panel of what an experiment is judged by. */
  declare metrics: MetricChoice[];
  declare saving: boolean;
  declare saveError: ApiError | undefined;
  /** The save's new phase assigns everybody afresh (the phase notice's choice). */
  declare rerandomize: boolean;

  constructor() {
    super();
    this.experience = '';
    this.draft = draftOf();
    this.feeds = [];
    this.metrics = [];
    this.saving = false;
    this.rerandomize = false;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    // Another experience is another load, as a new api is (which the base loads for).
    if (changed.has('experience') && !changed.has('api')) void this.reload();
  }

  /** Reads the feeds (for the feed select) and, when editing, the experience; what the form held is replaced. */
  protected override async load(api: AdminApi, signal: AbortSignal): Promise<void> {
    this.status = 'loading';
    this.saveError = undefined;
    const [feeds, metrics, loaded] = await Promise.all([
      api.feeds(signal),
      api.metrics(signal),
      this.experience ? api.experience(this.experience, signal) : undefined,
    ]);
    if (signal.aborted) return;
    this.feeds = feeds;
    this.metrics = metrics;
    this.loaded = loaded;
    this.draft = draftOf(loaded);
    this.error = undefined;
    this.status = 'ready';
  }

  override render() {
    const creating = !this.experience;
    return html`
      <div class="toolbar">
        <h1 tabindex="-1">${creating ? 'New experience' : html`Edit <code>${this.experience}</code>`}</h1>
        <button type="button" @click=${this.#back}>Back to experiences</button>
      </div>
      ${this.status === 'loading'
        ? html`<div class="state" role="status"><div class="spinner" aria-hidden="true"></div><p>Loading…</p></div>`
        : this.status === 'error'
          ? html`<div class="alert error" role="alert"><strong>The experience could not be loaded</strong>${this.error?.message ?? ''}
              <div class="buttons"><button type="button" @click=${() => void this.reload()}>Try again</button></div></div>`
          : this.#form(creating)}
      <svc-admin-confirm></svc-admin-confirm>
    `;
  }

  #form(creating: boolean): TemplateResult {
    const d = this.draft;
    const errors = draftErrors(d);
    const blocked = Object.keys(errors).length > 0;
    return html`<form @submit=${this.#save}>
      <section class="panel" aria-labelledby="what-title">
        <h2 id="what-title">What it serves</h2>
        ${creating
          ? html`<div class="field name">
              <label for="name">Name</label>
              <input id="name" name="name" required spellcheck="false" autocapitalize="off" aria-describedby="name-hint"
                .value=${d.name} @input=${(e: Event) => this.#set({ name: (e.target as HTMLInputElement).value })}>
              <p id="name-hint" class="hint">Pages and the Choose API ask for it by this name; it cannot change later.</p>
            </div>`
          : html`<p class="meta muted">Version ${this.loaded?.version} · from ${this.loaded?.source === 'file' ? 'the config file' : 'the API'} ·
              <span class="badge ${this.loaded?.status ?? ''}">${this.loaded?.status}</span></p>`}
        <fieldset class="kinds">
          <legend>Kind</legend>
          ${KINDS.map(({ kind, label, hint }) => html`<label class="choice">
            <input type="radio" name="kind" .value=${kind} .checked=${d.kind === kind} @change=${() => this.#setKind(kind)}>
            ${label} <span class="muted">(${hint})</span></label>`)}
        </fieldset>
        ${d.kind === 'experiment' ? this.#variations(d, errors) : d.kind === 'content' ? this.#body(d, errors) : feedFields(d, this.feeds, (change) => this.#set(change))}
      </section>
      <section class="panel" aria-labelledby="audience-title">
        <h2 id="audience-title">Who gets it</h2>
        <div class="grid">
          <div class="field">
            <label for="traffic">Traffic (%)</label>
            <input id="traffic" type="number" min="0" max="100" step="any" inputmode="decimal" aria-describedby="traffic-hint"
              .value=${d.traffic} @input=${(e: Event) => this.#set({ traffic: (e.target as HTMLInputElement).value })}>
            <p id="traffic-hint" class="hint">Share of visitors enrolled, 0–100.</p>
          </div>
          <div class="field">
            <label for="group">Group</label>
            <input id="group" spellcheck="false" autocapitalize="off" aria-describedby="group-hint"
              .value=${d.group} @input=${(e: Event) => this.#set({ group: (e.target as HTMLInputElement).value })}>
            <p id="group-hint" class="hint">Optional. A page can ask for every experience of a group at once.</p>
          </div>
          <fieldset class="field devices" aria-describedby="devices-hint">
            <legend>Devices</legend>
            <div class="buttons">
              ${DEVICES.map((device) => html`<label class="choice">
                <input type="checkbox" name="devices" .value=${device} .checked=${d.devices.includes(device)}
                  @change=${(e: Event) => this.#toggleDevice(device, (e.target as HTMLInputElement).checked)}>
                ${device}</label>`)}
            </div>
            <p id="devices-hint" class=${d.devices.length ? 'hint' : 'field-error'}>${devicesHint(d.devices)}</p>
          </fieldset>
        </div>
        ${this.#json('condition', 'Targeting condition (JSON)', d.condition, errors.condition,
          'Optional. MongoDB-style, over request and profile attributes, e.g. {"country": "DE"}. Empty: everyone.',
          (condition) => this.#set({ condition }))}
      </section>
      ${d.kind === 'experiment' ? metricsFields(d, this.metrics, (change) => this.#set(change)) : nothing}
      ${d.kind === 'experiment' ? analysisFields(d, (change) => this.#set(change)) : nothing}
      <div class="form-actions">
        ${blocked ? nothing : this.#phaseNotice()}
        ${this.#saveError()}
        <div class="buttons">
          <button type="submit" class="primary" ?disabled=${blocked || this.saving} aria-describedby=${blocked ? 'blocked' : nothing}>
            ${this.saving ? 'Saving…' : creating ? 'Create draft' : 'Save'}</button>
          <button type="button" @click=${this.#back}>Cancel</button>
          ${creating ? nothing : html`<button type="button" class="danger" @click=${() => void this.#delete()}>Delete…</button>`}
        </div>
        ${blocked ? html`<p id="blocked" class="hint">${blockedReason(errors)}</p>` : nothing}
      </div>
    </form>`;
  }

  #variations(d: ExperienceDraft, errors: Record<string, string | undefined>): TemplateResult {
    const sum = weightSum(d);
    const ok = weightsValid(d);
    return html`<fieldset class="variations">
      <legend>Variations <span class="muted">(the first is the control)</span></legend>
      <div class="table-scroll">
        <table>
          <thead><tr><th scope="col">Name</th><th scope="col">Weight (%)</th><th scope="col">Body (JSON)</th><th scope="col"><span class="sr-only">Remove</span></th></tr></thead>
          <tbody>${repeat(d.variations, (v) => v.id, (v, i) => html`<tr>
            <td class="v-name"><label class="v-label sr-only" for=${`v-name-${v.id}`}>Name<span class="sr-only"> of variation ${i + 1}</span></label>
              <input id=${`v-name-${v.id}`} required spellcheck="false" autocapitalize="off" .value=${v.name}
                @input=${(e: Event) => this.#setVariation(v, { name: (e.target as HTMLInputElement).value })}></td>
            <td class="v-weight"><label class="v-label sr-only" for=${`v-weight-${v.id}`}>Weight<span class="sr-only"> of variation ${i + 1}</span> (%)</label>
              <input id=${`v-weight-${v.id}`} type="number" min="0" max="100" step="any" inputmode="decimal" required .value=${v.weight}
                aria-invalid=${ok ? nothing : 'true'} aria-describedby="weights"
                @input=${(e: Event) => this.#setVariation(v, { weight: (e.target as HTMLInputElement).value })}></td>
            <td class="v-body">${this.#json(`v-body-${v.id}`, html`Body<span class="sr-only"> of variation ${i + 1}</span> (JSON)`, v.body, errors[`variations.${i}.body`], null,
              (body) => this.#setVariation(v, { body }), 'v-label sr-only')}</td>
            <td class="v-remove"><button type="button" class="small" ?disabled=${d.variations.length <= 1}
              @click=${() => this.#set({ variations: this.draft.variations.filter((x) => x.id !== v.id) })}>Remove<span class="sr-only"> variation ${v.name || i + 1}</span></button></td>
          </tr>`)}</tbody>
        </table>
      </div>
      <div class="weights-row">
        <div class="buttons">
          <button type="button" class="small" @click=${() => this.#set({ variations: [...d.variations, variationDraft('', '0')] })}>Add variation</button>
          <button type="button" class="small" @click=${this.#splitEvenly}>Split evenly</button>
        </div>
        <p id="weights" class=${ok ? 'weights ok' : 'weights bad'} role="status">
          Weights sum to ${formatSum(sum)}%${ok ? '.' : ' — they must sum to 100%.'}</p>
      </div>
    </fieldset>`;
  }

  #body(d: ExperienceDraft, errors: Record<string, string | undefined>): TemplateResult {
    return this.#json('body', 'Body (JSON)', d.body, errors.body, 'What every visitor gets, e.g. {"title": "Free shipping"}.',
      (body) => this.#set({ body }));
  }

  /** A JSON textarea with its label, hint and parse error (`aria-invalid`, described by the error). */
  #json(
    id: string, label: string | TemplateResult, value: string, error: string | undefined, hint: string | null, set: (text: string) => void, labelClass = '',
  ): TemplateResult {
    const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
    return html`<div class="field">
      <label for=${id} class=${labelClass}>${label}</label>
      <textarea id=${id} class="json" spellcheck="false" autocapitalize="off" .value=${value}
        aria-invalid=${error ? 'true' : nothing} aria-describedby=${described || nothing}
        @input=${(e: Event) => set((e.target as HTMLTextAreaElement).value)}></textarea>
      ${hint ? html`<p id=${`${id}-hint`} class="hint">${hint}</p>` : nothing}
      ${error ? html`<p id=${`${id}-error`} class="field-error">${error}</p>` : nothing}
    </div>`;
  }

  /** What this save changes of a running experiment that starts a new phase (nothing: it keeps its phase). */
  #phaseChanges(): string[] {
    const loaded = this.loaded;
    return loaded?.status === 'running' ? phaseChangesOf(itemOf(loaded), draftItem(this.draft, loaded)) : [];
  }

  /**
   * Said before saving a running experiment whose split, traffic or targeting changes: the save starts a phase, which
   * keeps everybody's assignment unless re-randomised.
   */
  #phaseNotice(): TemplateResult | typeof nothing {
    const changes = this.#phaseChanges();
    if (!changes.length) return nothing;
    return phaseNoticeView(this.experience, changes, this.rerandomize, (rerandomize) => (this.rerandomize = rerandomize));
  }

  #saveError(): TemplateResult | typeof nothing {
    const error = this.saveError;
    if (!error) return nothing;
    if (error.code === 'version_conflict') {
      return html`<div class="alert error" role="alert" tabindex="-1">
        <strong>Someone else changed '${this.experience}' since you opened it</strong>
        Nothing was saved. Load their version to see it (your changes here are discarded), then make yours again.
        <div class="buttons"><button type="button" @click=${() => void this.#reloadTheirs()}>Load their version</button></div>
      </div>`;
    }
    return html`<div class="alert error" role="alert" tabindex="-1"><strong>Not saved</strong>${error.message}</div>`;
  }

  #set(change: Partial<ExperienceDraft>): void {
    this.draft = { ...this.draft, ...change };
  }

  /** By id: a handler may run again before the render that gives it the row's new object. */
  #setVariation(v: VariationDraft, change: Partial<VariationDraft>): void {
    this.#set({ variations: this.draft.variations.map((x) => (x.id === v.id ? { ...x, ...change } : x)) });
  }

  /** Switching kind keeps what the other kinds held, so switching back loses nothing; a kind starts usable. */
  #setKind(kind: ExperienceKind): void {
    const d = this.draft;
    const change: Partial<ExperienceDraft> = { kind };
    if (kind === 'experiment' && !d.variations.length) change.variations = draftOf().variations;
    if (kind === 'feed' && !d.feed && this.feeds[0]) change.feed = String(this.feeds[0].id);
    this.#set(change);
  }

  #toggleDevice(device: (typeof DEVICES)[number], on: boolean): void {
    const devices = on ? [...this.draft.devices, device] : this.draft.devices.filter((x) => x !== device);
    this.#set({ devices: DEVICES.filter((x) => devices.includes(x)) });
  }

  /** Equal weights that sum to exactly 100: the remainder of the rounding goes to the first variation. */
  #splitEvenly(): void {
    const n = this.draft.variations.length;
    if (!n) return;
    const each = Math.floor((100 / n) * 100) / 100;
    const first = Math.round((100 - each * (n - 1)) * 100) / 100;
    this.#set({ variations: this.draft.variations.map((v, i) => ({ ...v, weight: String(i === 0 ? first : each) })) });
  }

  #back(): void {
    navigate(this, { name: 'experiences' });
  }

  async #save(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const api = this.api;
    if (!api || this.saving || Object.keys(draftErrors(this.draft)).length) return;
    const creating = !this.experience;
    const name = creating ? this.draft.name.trim() : this.experience;
    const item = draftItem(this.draft, this.loaded);
    // A new experience is saved create-only (If-None-Match: *): it never replaces one of the same name.
    await runChange(this, () => api.saveExperience(name, item, this.loaded?.version, { rerandomize: this.rerandomize && this.#phaseChanges().length > 0 }), {
      view: { name: 'experiences' },
      notice: (saved) => creating
        ? `Created '${saved.name}' as a draft (version ${saved.version}). Start it from the list when it is ready.`
        : `Saved '${saved.name}' (version ${saved.version}).`,
      ...(creating ? { exists: `An experience named '${name}' already exists: choose another name, or edit that one.` } : {}),
    });
  }

  async #reloadTheirs(): Promise<void> {
    await reloadTheirs(this, () => this.loaded && `Loaded version ${this.loaded.version} of '${this.loaded.name}'.`);
  }

  async #delete(): Promise<void> {
    const api = this.api;
    const loaded = this.loaded;
    if (!api || !loaded) return;
    const consequence = loaded.source === 'file'
      ? `Nobody will get '${loaded.name}' any more; it stays hidden although the config file still has it.`
      : `Nobody will get '${loaded.name}' any more and it leaves the list. This cannot be undone.`;
    if (!(await confirmDelete(this, `Delete '${loaded.name}'?`, consequence))) return;
    await runChange(this, () => api.deleteExperience(loaded.name, loaded.version), { view: { name: 'experiences' }, notice: () => `Deleted '${loaded.name}'.` });
  }
}
