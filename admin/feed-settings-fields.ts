// The feed form's exclusions and fallbacks: what a feed never shows (the cart, what was bought, what was viewed, product
// ids) and what fills its list, in order, when the strategy has too few.
import { html, nothing, type TemplateResult } from 'lit';
import { FALLBACK_SOURCES, type FeedRecord } from './feed.js';
import type { RuleFieldsHost } from './feed-rule-fields.js';

const checked = (e: Event): boolean => (e.target as HTMLInputElement).checked;
const value = (e: Event): string => (e.target as HTMLInputElement | HTMLSelectElement).value;

/** A fallback's label: a strategy as it is, another feed as `feed 3 (popular)`. */
function sourceLabel(source: string, feeds: readonly FeedRecord[]): string {
  if (!source.startsWith('feed:')) return source;
  const feed = feeds.find((f) => `feed:${f.id}` === source);
  return `feed ${source.slice(5)}${feed ? ` (${feed.strategy})` : ''}`;
}

export function excludeFields(host: RuleFieldsHost): TemplateResult {
  const d = host.draft;
  return html`<fieldset class="panel exclude" aria-describedby="exclude-hint">
    <legend><h2>Exclude</h2></legend>
    <p id="exclude-hint" class="hint">Never shown by this feed, for the visitor the request names.</p>
    <div class="buttons checks">
      <label class="choice"><input type="checkbox" name="in-cart" .checked=${d.inCart} @change=${(e: Event) => host.set({ inCart: checked(e) })}>In the cart</label>
      <label class="choice"><input type="checkbox" name="purchased" .checked=${d.purchased} @change=${(e: Event) => host.set({ purchased: checked(e) })}>Purchased</label>
      <label class="choice"><input type="checkbox" name="viewed" .checked=${d.viewed} @change=${(e: Event) => host.set({ viewed: checked(e) })}>Viewed</label>
    </div>
    <div class="grid">
      ${d.purchased ? html`<div class="field">
        <label for="purchased-days">Purchased within (days)</label>
        <input id="purchased-days" type="number" min="1" max="3650" step="1" inputmode="numeric" placeholder="30" aria-describedby="purchased-days-hint"
          .value=${d.purchasedDays} @input=${(e: Event) => host.set({ purchasedDays: value(e) })}>
        <p id="purchased-days-hint" class="hint">Optional; 30 when empty.</p>
      </div>` : nothing}
      <div class="field">
        <label for="exclude-ids">Product ids</label>
        <input id="exclude-ids" spellcheck="false" autocapitalize="off" aria-describedby="exclude-ids-hint"
          .value=${d.ids} @input=${(e: Event) => host.set({ ids: value(e) })}>
        <p id="exclude-ids-hint" class="hint">Comma-separated, e.g. p3, p4.</p>
      </div>
    </div>
    ${host.errorAt('exclude')}
  </fieldset>`;
}

/** The fallbacks in order, each with Up, Down and Remove, and a select that adds one. */
export function fallbackFields(host: RuleFieldsHost, feeds: readonly FeedRecord[], self: string): TemplateResult {
  const list = host.draft.fallback;
  const options = [...FALLBACK_SOURCES, ...feeds.filter((f) => String(f.id) !== self).map((f) => `feed:${f.id}`)].filter((s) => !list.includes(s));
  // Handlers read the draft as it is when they run: an edit just before may not have rendered yet.
  const move = (from: number, to: number): void => {
    const next = [...host.draft.fallback];
    next.splice(to, 0, ...next.splice(from, 1));
    host.set({ fallback: next });
  };
  return html`<fieldset class="panel fallback" aria-describedby="fallback-hint">
    <legend><h2>Fallback</h2></legend>
    <p id="fallback-hint" class="hint">What fills the list, in this order, when the strategy has too few products.</p>
    ${list.length
      ? html`<ol class="fallbacks">${list.map((source, i) => html`<li>
          <span class="source">${sourceLabel(source, feeds)}</span>
          <span class="buttons">
            <button type="button" class="small" ?disabled=${i === 0} @click=${() => move(i, i - 1)}>Up<span class="sr-only"> ${source}</span></button>
            <button type="button" class="small" ?disabled=${i === list.length - 1} @click=${() => move(i, i + 1)}>Down<span class="sr-only"> ${source}</span></button>
            <button type="button" class="small" @click=${() => host.set({ fallback: host.draft.fallback.filter((_, j) => j !== i) })}>Remove<span class="sr-only"> ${source}</span></button>
          </span></li>`)}</ol>`
      : html`<p class="muted">No fallback: the list may be shorter than the limit.</p>`}
    ${options.length ? html`<div class="field add-fallback">
      <label for="add-fallback">Add a fallback</label>
      <select id="add-fallback" @change=${(e: Event) => {
        const select = e.target as HTMLSelectElement;
        if (select.value) host.set({ fallback: [...host.draft.fallback, select.value] });
        select.value = '';
      }}>
        <option value="">Choose…</option>
        ${options.map((s) => html`<option value=${s}>${sourceLabel(s, feeds)}</option>`)}
      </select>
    </div>` : nothing}
    ${host.errorAt('fallback')}
  </fieldset>`;
}
