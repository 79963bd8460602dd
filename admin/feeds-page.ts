import { css, html, type TemplateResult } from 'lit';
import type { AdminApi } from './admin-api.js';
import { hashOf } from './admin-routes.js';
import { adminStyles } from './admin-styles.js';
import { ApiView } from './api-view.js';
import { label } from './cell-label.js';
import type { Feed } from './experience.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-feeds': SvcAdminFeeds;
  }
}

/**
 * `<svc-admin-feeds>`: the project's recommendation feeds (id, strategy, where each comes from), each with a link to
 * its report (`#/feeds/{id}/report`), which the console follows as any address of its screens.
 *
 * @tagname svc-admin-feeds
 * @summary The console's list of recommendation feeds.
 *
 * @attr status - Reflected, read-only: `loading`, `ready`, `empty` (no feed) or `error`.
 */
export class SvcAdminFeeds extends ApiView {
  static override styles = [adminStyles, css`
    a {
      color: #0550ae;
      font-weight: 500;
    }
  `];

  static override properties = {
    feeds: { state: true },
  };

  declare feeds: Feed[];

  constructor() {
    super();
    this.feeds = [];
  }

  protected override async load(api: AdminApi, signal: AbortSignal): Promise<void> {
    this.status = 'loading';
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
        <div class="buttons"><button type="button" @click=${() => void this.reload()}>Refresh</button></div>
      </div>
      ${this.#body()}
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
    if (this.status === 'empty') return html`<div class="state"><p>No feeds in this project.</p></div>`;
    return html`<div class="table-scroll" role="region" aria-labelledby="caption" tabindex="0">
      <table class="cards">
        <caption id="caption" class="sr-only">Recommendation feeds of the project</caption>
        <thead><tr>
          <th scope="col">Feed</th>
          <th scope="col">Strategy</th>
          <th scope="col">Source</th>
          <th scope="col"><span class="sr-only">Report</span></th>
        </tr></thead>
        <tbody>${this.feeds.map((f) => html`<tr data-feed=${f.id}>
          <th scope="row">Feed ${f.id}</th>
          <td>${label('Strategy')}${f.strategy}</td>
          <td>${label('Source')}${f.source}</td>
          <td><a href=${hashOf({ name: 'feed-report', feed: f.id })}>Report<span class="sr-only"> of feed ${f.id}</span></a></td>
        </tr>`)}</tbody>
      </table>
    </div>`;
  }
}
