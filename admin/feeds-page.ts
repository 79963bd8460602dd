import { css, html, nothing, type TemplateResult } from 'lit';
import { ApiError, type AdminApi } from './admin-api.js';
import { navigate, notify } from './admin-events.js';
import { hashOf } from './admin-routes.js';
import { adminStyles } from './admin-styles.js';
import { ApiView } from './api-view.js';
import { label } from './cell-label.js';
import type { SvcAdminConfirm } from './confirm-dialog.js';
import type { FeedRecord } from './feed.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-feeds': SvcAdminFeeds;
  }
}

/** A feed's merchandising settings in a few words: `2 rules · excludes in-cart · falls back on popular`. */
function settingsText(f: FeedRecord): string {
  const parts: string[] = [];
  if (f.limit !== undefined) parts.push(`at most ${f.limit}`);
  if (f.rules?.length) parts.push(`${f.rules.length} rule${f.rules.length === 1 ? '' : 's'}`);
  if (f.exclude?.length) parts.push(`excludes ${f.exclude.map((e) => (typeof e === 'string' ? e : `${e.ids.length} ids`)).join(', ')}`);
  const fallback = f.fallback ?? ['popular'];
  parts.push(fallback.length ? `falls back on ${fallback.map((x) => (typeof x === 'string' ? x : `feed ${x.feed}`)).join(', ')}` : 'no fallback');
  return parts.join(' · ');
}

/**
 * `<svc-admin-feeds>`: the project's recommendation feeds (id, strategy, settings, where each comes from, version), each
 * with its report (`#/feeds/{id}/report`) and, for editors, Edit and Delete; New feed opens an empty form. A delete is
 * confirmed in a dialog and written with `If-Match` of the version listed.
 *
 * @tagname svc-admin-feeds
 * @summary The console's list of recommendation feeds.
 *
 * @attr status - Reflected, read-only: `loading`, `ready`, `empty` (no feed) or `error`.
 *
 * @fires svc-admin:navigate - Edit or New feed was chosen.
 * @fires svc-admin:notice - A feed was deleted.
 */
export class SvcAdminFeeds extends ApiView {
  static override styles = [adminStyles, css`
    a {
      color: #0550ae;
      font-weight: 500;
    }
    .settings {
      max-inline-size: 28rem;
    }
    .action-error {
      margin-block-end: 1rem;
    }
  `];

  static override properties = {
    feeds: { state: true },
    actionError: { state: true },
    readOnly: { type: Boolean },
  };

  declare feeds: FeedRecord[];
  /** Why the last delete failed. */
  declare actionError: string | undefined;
  /** The signed-in key may only read (a viewer): no New feed, Edit or Delete. */
  declare readOnly: boolean;

  constructor() {
    super();
    this.feeds = [];
    this.readOnly = false;
  }

  protected override async load(api: AdminApi, signal: AbortSignal): Promise<void> {
    if (!this.feeds.length) this.status = 'loading';
    const feeds = await api.feeds(signal);
    if (signal.aborted) return;
    this.feeds = [...feeds].sort((a, b) => a.id - b.id);
    this.error = undefined;
    this.status = feeds.length ? 'ready' : 'empty';
  }

  override render() {
    return html`
      <div class="toolbar">
        <h1 tabindex="-1" data-heading>Feeds</h1>
        <div class="buttons">
          <button type="button" @click=${() => void this.reload()}>Refresh</button>
          ${this.readOnly ? nothing : html`<button type="button" class="primary" @click=${() => navigate(this, { name: 'feed-editor', feed: null })}>New feed</button>`}
        </div>
      </div>
      ${this.actionError ? html`<div class="alert error action-error" role="alert"><strong>The feed was not deleted</strong>${this.actionError}</div>` : nothing}
      ${this.#body()}
      <svc-admin-confirm></svc-admin-confirm>
    `;
  }

  #body(): TemplateResult {
    if (this.status === 'loading') {
      return html`<div class="state" role="status"><div class="spinner" aria-hidden="true"></div><p>Loading feeds…</p></div>`;
    }
    if (this.status === 'error') {
      return html`<div class="alert error" role="alert">
        <strong>The feeds could not be loaded</strong>${this.error?.message ?? ''}
        <div class="buttons"><button type="button" @click=${() => void this.reload()}>Try again</button></div>
      </div>`;
    }
    if (this.status === 'empty') return html`<div class="state"><p>No feeds in this project${this.readOnly ? '.' : ' — create one.'}</p></div>`;
    return html`<div class="table-scroll" role="region" aria-labelledby="caption" tabindex="0">
      <table class="cards">
        <caption id="caption" class="sr-only">Recommendation feeds of the project</caption>
        <thead><tr>
          <th scope="col">Feed</th>
          <th scope="col">Strategy</th>
          <th scope="col">Settings</th>
          <th scope="col">Source</th>
          <th scope="col" class="num">Version</th>
          <th scope="col"><span class="sr-only">Actions</span></th>
        </tr></thead>
        <tbody>${this.feeds.map((f) => html`<tr data-feed=${f.id}>
          <th scope="row">Feed ${f.id}</th>
          <td>${label('Strategy')}${f.strategy}</td>
          <td class="settings">${label('Settings')}${settingsText(f)}</td>
          <td>${label('Source')}${f.source}</td>
          <td class="num">${label('Version')}${f.version}</td>
          <td class="wide"><div class="buttons">
            <a href=${hashOf({ name: 'feed-report', feed: f.id })}>Report<span class="sr-only"> of feed ${f.id}</span></a>
            ${this.readOnly ? nothing : html`
              <button type="button" class="small" data-action="edit" @click=${() => navigate(this, { name: 'feed-editor', feed: f.id })}>Edit<span class="sr-only"> feed ${f.id}</span></button>
              <button type="button" class="small danger" data-action="delete" @click=${() => void this.#delete(f)}>Delete<span class="sr-only"> feed ${f.id}</span></button>`}
          </div></td>
        </tr>`)}</tbody>
      </table>
    </div>`;
  }

  /** Asks, then deletes the feed as listed, if nobody changed it since and no experience uses it. */
  async #delete(f: FeedRecord): Promise<void> {
    const dialog = this.renderRoot.querySelector<SvcAdminConfirm>('svc-admin-confirm')!;
    const answer = await dialog.ask({
      title: `Delete feed ${f.id}?`,
      describe: () => f.source === 'file'
        ? `Feed ${f.id} stops answering; it stays hidden although the config file still has it.`
        : `Feed ${f.id} stops answering and leaves the list. This cannot be undone.`,
      confirmLabel: () => 'Delete',
      danger: true,
    });
    if (!answer || !this.api) return;
    this.actionError = undefined;
    try {
      await this.api.deleteFeed(f.id, f.version);
      notify(this, `Deleted feed ${f.id}.`);
    } catch (error) {
      this.actionError = error instanceof ApiError && error.code === 'version_conflict'
        ? `Someone else changed feed ${f.id} since this list was loaded. The list now shows the current version: check it and try again.`
        : error instanceof ApiError ? error.message : String(error);
    }
    await this.reload();
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>(this.actionError ? '[role="alert"]' : 'h1')?.focus();
  }
}
