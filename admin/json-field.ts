// A JSON textarea of the console's forms: its label, hint and parse error, the error tied to it for screen readers.
import { html, nothing, type TemplateResult } from 'lit';

/** The field `id`: `aria-invalid` and described by its error when there is one, and by its hint. */
export function jsonField(
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
