import { html, type TemplateResult } from 'lit';

/** A cell's column name, shown in the cell when the table is a card per row (a phone). */
export function label(text: string): TemplateResult {
  return html`<span class="cell-label">${text}</span>`;
}
