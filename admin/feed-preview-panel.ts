import { css, html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { removalText, type FeedPreviewAnswer, type FoundProduct, type PreviewProduct } from '../wire/feed-preview.js';
import { ApiError, type AdminApi } from './admin-api.js';
import { adminStyles } from './admin-styles.js';
import { editorStyles } from './editor-styles.js';
import type { FeedItem } from './feed.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-feed-preview': SvcAdminFeedPreview;
  }
}

/**
 * `<svc-admin-feed-preview>`: the live preview of the feed being edited, saved or not. Pick a product (searched by id or
 * title in the catalog) and optionally a profile id; it shows what the feed answers with its rules, each product the
 * rules left out and why, and each strategy's own list. Once shown, it follows every change of `feed`. Nothing is
 * recorded: the service answers a preview without a recommendationId.
 *
 * @tagname svc-admin-feed-preview
 * @summary The feed editor's live preview.
 *
 * @prop api - The console's AdminApi.
 * @prop feed - The feed as the form holds it.
 */
export class SvcAdminFeedPreview extends LitElement {
  static override styles = [adminStyles, editorStyles, css`
    :host {
      display: block;
    }
    .inputs {
      display: grid;
      grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr));
      gap: 1rem;
      align-items: end;
    }
    .lists {
      display: grid;
      grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr));
      gap: 1rem;
      margin-block-start: 1rem;
    }
    h3 {
      margin: 0 0 0.5rem;
      font-size: 0.9375rem;
    }
    ol {
      margin: 0;
      padding-inline-start: 1.5rem;
    }
    li {
      overflow-wrap: anywhere;
    }
    .why {
      display: block;
      color: #9a3412;
      font-size: 0.8125rem;
    }
    .strategies {
      margin-block-start: 1rem;
    }
  `];

  static override properties = {
    api: { attribute: false },
    feed: { attribute: false },
    productId: { state: true },
    profileId: { state: true },
    found: { state: true },
    answer: { state: true },
    error: { state: true },
    busy: { state: true },
  };

  declare api: AdminApi | undefined;
  declare feed: FeedItem | undefined;
  declare productId: string;
  declare profileId: string;
  declare found: FoundProduct[];
  declare answer: FeedPreviewAnswer | undefined;
  declare error: string | undefined;
  declare busy: boolean;
  #search: AbortController | undefined;
  #preview: AbortController | undefined;

  constructor() {
    super();
    this.productId = '';
    this.profileId = '';
    this.found = [];
    this.busy = false;
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#search?.abort();
    this.#preview?.abort();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // Live: a preview shown follows the form (asked here, before the render, so that `busy` shows in this one).
    if (changed.has('feed') && changed.get('feed') !== undefined && (this.answer || this.error)) void this.run();
  }

  /** Catalog products for what is typed: suggestions of the product field. */
  async #find(q: string): Promise<void> {
    this.#search?.abort();
    const search = (this.#search = new AbortController());
    try {
      const found = await this.api?.catalog(q, search.signal);
      if (!search.signal.aborted && found) this.found = found;
    } catch {
      // Suggestions only: an id typed in full still previews.
    }
  }

  /** Asks the service for the preview of the feed as it is now. */
  async run(): Promise<void> {
    const api = this.api;
    const feed = this.feed;
    if (!api || !feed) return;
    this.#preview?.abort();
    const preview = (this.#preview = new AbortController());
    this.busy = true;
    try {
      const productId = this.productId.trim();
      const profileId = this.profileId.trim();
      const answer = await api.previewFeed({ feed, ...(productId ? { productId } : {}), ...(profileId ? { profileId } : {}) }, preview.signal);
      if (preview.signal.aborted) return;
      this.answer = answer;
      this.error = undefined;
    } catch (error) {
      if (preview.signal.aborted) return;
      this.error = error instanceof ApiError && error.code === 'invalid_config'
        ? `The form has a problem: ${error.message}` : error instanceof Error ? error.message : String(error);
    } finally {
      if (!preview.signal.aborted) this.busy = false;
    }
  }

  override render() {
    return html`<section class="panel" aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      <p class="hint">What this feed answers, unsaved changes included. Nothing is recorded.</p>
      <div class="inputs">
        <div class="field">
          <label for="preview-product">Product (id or title)</label>
          <input id="preview-product" type="search" list="preview-products" spellcheck="false" autocapitalize="off" .value=${this.productId}
            @focus=${() => void this.#find(this.productId)}
            @input=${(e: Event) => {
              this.productId = (e.target as HTMLInputElement).value;
              void this.#find(this.productId);
            }}>
          <datalist id="preview-products">${this.found.map((p) => html`<option value=${p.id}>${p.title ?? p.id}${p.available ? '' : ' (unavailable)'}</option>`)}</datalist>
        </div>
        <div class="field">
          <label for="preview-profile">Profile id <span class="muted">(optional)</span></label>
          <input id="preview-profile" spellcheck="false" autocapitalize="off" .value=${this.profileId}
            @input=${(e: Event) => (this.profileId = (e.target as HTMLInputElement).value)}>
        </div>
        <div class="buttons"><button type="button" class="primary" data-action="preview" ?disabled=${this.busy} @click=${() => void this.run()}>
          ${this.busy ? 'Previewing…' : 'Preview'}</button></div>
      </div>
      <div role="status" class="preview-status">${this.error ? html`<div class="alert error"><strong>No preview</strong>${this.error}</div>` : nothing}</div>
      ${this.answer ? this.#answer(this.answer) : nothing}
    </section>`;
  }

  #answer(a: FeedPreviewAnswer): TemplateResult {
    const item = (p: PreviewProduct): TemplateResult => html`<li><code>${p.id}</code>${p.title ? html` ${p.title}` : nothing}</li>`;
    return html`<div class="lists">
        <div class="feed-list">
          <h3>The feed answers</h3>
          ${a.feed.products.length ? html`<ol>${a.feed.products.map(item)}</ol>` : html`<p class="muted">No products.</p>`}
        </div>
        <div class="removed">
          <h3>Left out by the rules</h3>
          ${a.feed.removed.length
            ? html`<ul>${a.feed.removed.map((r) => html`<li data-removed=${r.id}><code>${r.id}</code><span class="why">${removalText(r)}</span></li>`)}</ul>`
            : html`<p class="muted">Nothing.</p>`}
        </div>
      </div>
      <div class="lists strategies">${a.strategies.map((s) => html`<div data-strategy=${s.strategy}>
        <h3>${s.strategy}</h3>
        ${s.products.length ? html`<ol>${s.products.map(item)}</ol>` : html`<p class="muted">No products.</p>`}
      </div>`)}</div>`;
  }
}
