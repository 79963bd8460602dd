// The experience editor's fields for a feed-backed experience: which feed, and how many products.
import { html, type TemplateResult } from 'lit';
import type { Feed } from './experience.js';
import type { ExperienceDraft } from './experience-form.js';

/** The feed select (the project's feeds) and the limit. */
export function feedFields(d: ExperienceDraft, feeds: readonly Feed[], set: (change: Partial<ExperienceDraft>) => void): TemplateResult {
  return html`<div class="grid">
    <div class="field">
      <label for="feed">Feed</label>
      ${feeds.length
        ? html`<select id="feed" required .value=${d.feed} @change=${(e: Event) => set({ feed: (e.target as HTMLSelectElement).value })}>
            ${feeds.map((f) => html`<option value=${String(f.id)} ?selected=${String(f.id) === d.feed}>Feed ${f.id} · ${f.strategy}</option>`)}
          </select>`
        : html`<p class="hint">This project has no feeds yet.</p>`}
    </div>
    <div class="field">
      <label for="limit">Limit</label>
      <input id="limit" type="number" min="1" max="100" step="1" inputmode="numeric" aria-describedby="limit-hint"
        .value=${d.limit} @input=${(e: Event) => set({ limit: (e.target as HTMLInputElement).value })}>
      <p id="limit-hint" class="hint">Optional. How many products, 1–100.</p>
    </div>
  </div>`;
}
