import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { AdminApi, ApiError } from './admin-api.js';
import { navigate } from './admin-events.js';
import { adminStyles } from './admin-styles.js';
import { ApiView } from './api-view.js';
import { confirmDelete, reloadTheirs, runChange } from './editor-changes.js';
import { editorStyles } from './editor-styles.js';
import { serverFieldError, type BanditField } from './bandit-draft.js';
import { DEVICES, itemOf, type Allocation, type Experience, type ExperienceKind, type Feed } from './experience.js';
import { analysisFields } from './experience-analysis.js';
import { banditFields } from './experience-bandit-fields.js';
import { blockedReason, devicesHint, draftErrors, draftItem, draftOf, type ExperienceDraft } from './experience-form.js';
import { feedFields } from './experience-feed-fields.js';
import { metricsFields, type MetricChoice } from './experience-metrics-panel.js';
import { evenly, variationsFields } from './experience-variations.js';
import { jsonField } from './json-field.js';
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
    serverField: { state: true },
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
  /** The bandit field the service's refusal of the last save named, with what it said: shown at the field. */
  declare serverField: { field: BanditField; message: string } | undefined;
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
    this.serverField = undefined;
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
    const errors = draftErrors(d, this.metrics);
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
        ${d.kind === 'experiment'
          ? variationsFields(d, errors, { draft: () => this.draft, set: (change) => this.#set(change), feeds: this.feeds, metrics: this.metrics })
          : d.kind === 'content' ? this.#body(d, errors) : feedFields(d, this.feeds, (change) => this.#set(change))}
      </section>
      ${d.kind === 'experiment'
        ? banditFields(d, errors, this.serverField, this.metrics, (change) => this.#set(change), (allocation) => this.#allocate(allocation))
        : nothing}
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
        ${jsonField('condition', 'Targeting condition (JSON)', d.condition, errors.condition,
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

  #body(d: ExperienceDraft, errors: Record<string, string | undefined>): TemplateResult {
    return jsonField('body', 'Body (JSON)', d.body, errors.body, 'What every visitor gets, e.g. {"title": "Free shipping"}.',
      (body) => this.#set({ body }));
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
    // What the service said of a field stands until that field (or, for the decision metric, the goals) changes.
    const named = this.serverField?.field;
    const key = named === 'bandit.metric' ? 'banditMetric' : named?.slice('bandit.'.length);
    if (key && (key in change || (named === 'bandit.metric' && 'goals' in change))) this.serverField = undefined;
  }

  /** A bandit starts with equal weights (and keeps them as variations come and go: it sets them itself). */
  #allocate(allocation: Allocation): void {
    this.#set({ allocation, ...(allocation === 'bandit' ? { variations: evenly(this.draft.variations) } : {}) });
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

  #back(): void {
    navigate(this, { name: 'experiences' });
  }

  async #save(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const api = this.api;
    if (!api || this.saving || Object.keys(draftErrors(this.draft, this.metrics)).length) return;
    const creating = !this.experience;
    const name = creating ? this.draft.name.trim() : this.experience;
    const item = draftItem(this.draft, this.loaded);
    this.serverField = undefined;
    // A new experience is saved create-only (If-None-Match: *): it never replaces one of the same name.
    await runChange(this, () => api.saveExperience(name, item, this.loaded?.version, { rerandomize: this.rerandomize && this.#phaseChanges().length > 0 }), {
      view: { name: 'experiences' },
      notice: (saved) => creating
        ? `Created '${saved.name}' as a draft (version ${saved.version}). Start it from the list when it is ready.`
        : `Saved '${saved.name}' (version ${saved.version}).`,
      ...(creating ? { exists: `An experience named '${name}' already exists: choose another name, or edit that one.` } : {}),
    });
    const refused = this.saveError;
    if (refused?.code === 'invalid_config') this.serverField = serverFieldError(refused.message);
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
