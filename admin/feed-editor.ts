import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { ApiError, type AdminApi } from './admin-api.js';
import { navigate } from './admin-events.js';
import { adminStyles } from './admin-styles.js';
import { ApiView } from './api-view.js';
import { confirmDelete, reloadTheirs, runChange } from './editor-changes.js';
import { editorStyles } from './editor-styles.js';
import { errorPlace, feedDraftOf, feedItemOf, STRATEGIES, type FeedDraft, type FeedItem, type FeedRecord } from './feed.js';
import { feedEditorStyles } from './feed-editor-styles.js';
import { ruleFields, type RuleFieldsHost } from './feed-rule-fields.js';
import { excludeFields, fallbackFields } from './feed-settings-fields.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-feed-editor': SvcAdminFeedEditor;
  }
}

/**
 * `<svc-admin-feed-editor>`: creates (`feed` null) or edits one recommendation feed — its strategy, limit, attribution
 * window and merchandising settings (rules, exclusions, fallbacks, dedupe) as fields — beside a live preview of the
 * feed as the form holds it. A save carries `If-Match` of the version loaded: when someone else changed the feed
 * meanwhile, nothing is saved, the form keeps what was typed, and the editor offers to save it over theirs or to load
 * theirs. The service's message is shown next to the field it names.
 *
 * @tagname svc-admin-feed-editor
 * @summary The console's feed editor.
 *
 * @prop feed - The id of the feed to edit; null: a new one.
 * @attr status - Reflected, read-only: `loading`, `ready` or `error` (it could not be loaded).
 *
 * @fires svc-admin:navigate - Back to the feeds, after a save or delete or on Cancel.
 * @fires svc-admin:notice - Saved or deleted; `detail` says which version.
 */
export class SvcAdminFeedEditor extends ApiView implements RuleFieldsHost {
  static override styles = [adminStyles, editorStyles, feedEditorStyles];

  static override properties = {
    feed: { attribute: false },
    draft: { state: true },
    loaded: { state: true },
    feeds: { state: true },
    saving: { state: true },
    saveError: { state: true },
  };

  declare feed: number | null;
  declare draft: FeedDraft;
  /** The feed as loaded (editing): its version goes in `If-Match`. */
  declare loaded: FeedRecord | undefined;
  /** The project's feeds, for fallbacks on another feed. */
  declare feeds: FeedRecord[];
  declare saving: boolean;
  declare saveError: ApiError | undefined;

  constructor() {
    super();
    this.feed = null;
    this.draft = feedDraftOf();
    this.feeds = [];
    this.saving = false;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    if (changed.has('feed') && changed.get('feed') !== undefined && !changed.has('api')) void this.reload();
  }

  protected override async load(api: AdminApi, signal: AbortSignal): Promise<void> {
    this.status = 'loading';
    this.saveError = undefined;
    const feeds = await api.feeds(signal);
    if (signal.aborted) return;
    this.feeds = feeds;
    this.loaded = this.feed === null ? undefined : feeds.find((f) => f.id === this.feed);
    if (this.feed !== null && !this.loaded) throw new ApiError(404, 'feed_not_found', `There is no feed ${this.feed} in this project.`);
    const next = Math.max(0, ...feeds.map((f) => f.id)) + 1;
    this.draft = this.loaded ? feedDraftOf(this.loaded) : { ...feedDraftOf(), id: String(next) };
    this.error = undefined;
    this.status = 'ready';
  }

  #shown: { draft: FeedDraft; item: FeedItem } | undefined;

  /** The feed the form holds, the same object until the form changes: the preview follows changes, not renders. */
  #item(): FeedItem {
    if (this.#shown?.draft !== this.draft) this.#shown = { draft: this.draft, item: feedItemOf(this.draft) };
    return this.#shown.item;
  }

  set(change: Partial<FeedDraft>): void {
    this.draft = { ...this.draft, ...change };
  }

  /** The service's message next to the part of the form it names. */
  errorAt(place: string): TemplateResult | typeof nothing {
    const error = this.saveError;
    if (!error || error.code !== 'invalid_config' || errorPlace(error.message) !== place) return nothing;
    return html`<p id=${`${place}-error`} class="field-error">${error.message}</p>`;
  }

  #described(place: string, hint?: string): string | typeof nothing {
    const ids = [hint, this.errorAt(place) === nothing ? '' : `${place}-error`].filter(Boolean).join(' ');
    return ids || nothing;
  }

  override render() {
    const creating = this.feed === null;
    return html`
      <div class="toolbar">
        <h1 tabindex="-1" data-heading>${creating ? 'New feed' : `Edit feed ${this.feed}`}</h1>
        <button type="button" @click=${this.#back}>Back to feeds</button>
      </div>
      ${this.status === 'loading'
        ? html`<div class="state" role="status"><div class="spinner" aria-hidden="true"></div><p>Loading…</p></div>`
        : this.status === 'error'
          ? html`<div class="alert error" role="alert"><strong>The feed could not be loaded</strong>${this.error?.message ?? ''}
              <div class="buttons"><button type="button" @click=${() => void this.reload()}>Try again</button></div></div>`
          : html`<div class="layout">${this.#form(creating)}
              <svc-admin-feed-preview .api=${this.api} .feed=${this.#item()}></svc-admin-feed-preview></div>`}
      <svc-admin-confirm></svc-admin-confirm>
    `;
  }

  #number(id: string, label: string, value: string, hint: string, set: (text: string) => void, max: number): TemplateResult {
    return html`<div class="field">
      <label for=${id}>${label}</label>
      <input id=${id} type="number" min="1" max=${max} step="1" inputmode="numeric" .value=${value}
        aria-invalid=${this.errorAt(id) === nothing ? nothing : 'true'} aria-describedby=${this.#described(id, `${id}-hint`)}
        @input=${(e: Event) => set((e.target as HTMLInputElement).value)}>
      <p id=${`${id}-hint`} class="hint">${hint}</p>
      ${this.errorAt(id)}
    </div>`;
  }

  #form(creating: boolean): TemplateResult {
    const d = this.draft;
    return html`<form @submit=${this.#save}>
      <section class="panel" aria-labelledby="feed-title">
        <h2 id="feed-title">Feed</h2>
        ${creating ? nothing : html`<p class="meta muted">Version ${this.loaded?.version} · from ${this.loaded?.source === 'file' ? 'the config file' : 'the API'}</p>`}
        <div class="grid">
          ${creating ? this.#number('id', 'Id', d.id, 'Pages ask for the feed by this number; it cannot change later.', (id) => this.set({ id }), 999_999_999) : nothing}
          <div class="field">
            <label for="strategy">Strategy</label>
            <select id="strategy" aria-describedby=${this.#described('strategy')} @change=${(e: Event) => this.set({ strategy: (e.target as HTMLSelectElement).value })}>
              ${STRATEGIES.map((s) => html`<option value=${s} ?selected=${s === d.strategy}>${s}</option>`)}
            </select>
            ${this.errorAt('strategy')}
          </div>
          ${this.#number('limit', 'Limit', d.limit, 'Optional. The most products it answers, 1–100.', (limit) => this.set({ limit }), 100)}
          ${this.#number('attributionHours', 'Attribution (hours)', d.attributionHours, 'Optional. How long a click earns the orders after it.', (attributionHours) => this.set({ attributionHours }), 8760)}
        </div>
        <label class="choice"><input type="checkbox" name="dedupe" .checked=${d.dedupe} @change=${(e: Event) => this.set({ dedupe: (e.target as HTMLInputElement).checked })}>
          Leave out products another widget of the same page view shows (dedupe)</label>
        ${this.errorAt('dedupe')}
      </section>
      ${ruleFields(this)}
      ${excludeFields(this)}
      ${fallbackFields(this, this.feeds, d.id)}
      <div class="form-actions">
        ${this.#saveError()}
        <div class="buttons">
          <button type="submit" class="primary" ?disabled=${this.saving}>${this.saving ? 'Saving…' : creating ? 'Create feed' : 'Save'}</button>
          <button type="button" @click=${this.#back}>Cancel</button>
          ${creating ? nothing : html`<button type="button" class="danger" @click=${() => void this.#delete()}>Delete…</button>`}
        </div>
      </div>
    </form>`;
  }

  #saveError(): TemplateResult | typeof nothing {
    const error = this.saveError;
    if (!error) return nothing;
    if (error.code === 'version_conflict' && this.loaded) {
      return html`<div class="alert error" role="alert" tabindex="-1">
        <strong>Someone else changed feed ${this.feed} since you opened it</strong>
        Nothing was saved, and your changes are still in the form. Save them over the other version, or discard them and load it.
        <div class="buttons">
          <button type="button" data-action="overwrite" @click=${() => void this.#overwrite()}>Save mine over theirs</button>
          <button type="button" @click=${() => void this.#reloadTheirs()}>Discard mine and load theirs</button>
        </div>
      </div>`;
    }
    const place = error.code === 'invalid_config' ? errorPlace(error.message) : undefined;
    return html`<div class="alert error" role="alert" tabindex="-1"><strong>Not saved</strong>${error.message}${place ? html` (shown at the field)` : nothing}</div>`;
  }

  #back(): void {
    navigate(this, { name: 'feeds' });
  }

  async #save(event?: SubmitEvent, version = this.loaded?.version): Promise<void> {
    event?.preventDefault();
    const api = this.api;
    if (!api || this.saving) return;
    const creating = this.feed === null;
    const item = feedItemOf(this.draft);
    await runChange(this, () => api.saveFeed(item, version), {
      view: { name: 'feeds' },
      notice: (saved) => creating ? `Created feed ${saved.id} (version ${saved.version}).` : `Saved feed ${saved.id} (version ${saved.version}).`,
      ...(creating ? { exists: `A feed ${item.id} already exists: choose another id, or edit that one.` } : {}),
    });
  }

  /** Saves the form over the version someone else saved: the version read now goes in `If-Match`. */
  async #overwrite(): Promise<void> {
    const current = (await this.api?.feeds())?.find((f) => f.id === this.feed);
    if (!current) return this.#reloadTheirs();
    this.loaded = current;
    await this.#save(undefined, current.version);
  }

  async #reloadTheirs(): Promise<void> {
    await reloadTheirs(this, () => this.loaded && `Loaded version ${this.loaded.version} of feed ${this.loaded.id}.`);
  }

  async #delete(): Promise<void> {
    const api = this.api;
    const loaded = this.loaded;
    if (!api || !loaded) return;
    const consequence = `Feed ${loaded.id} stops answering${loaded.source === 'file' ? '; it stays hidden although the config file still has it.' : ' and leaves the list. This cannot be undone.'}`;
    if (!(await confirmDelete(this, `Delete feed ${loaded.id}?`, consequence))) return;
    await runChange(this, () => api.deleteFeed(loaded.id, loaded.version), { view: { name: 'feeds' }, notice: () => `Deleted feed ${loaded.id}.` });
  }
}
