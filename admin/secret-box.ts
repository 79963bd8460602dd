// A secret shown once (a new key, an invitation link, a webhook's signing secret): in a box with a Copy button, as
// text only, never in an attribute, where it would outlive the box in the DOM and in anything that serializes the page.
import { css, html, type TemplateResult } from 'lit';

/** The box's look: green, the secret on white, wrapping anywhere, selected whole by a click. */
export const secretStyles = css`
  .secret {
    display: grid;
    gap: 0.75rem;
    max-inline-size: 40rem;
    margin-block: 1rem;
    padding: 1rem 1.25rem;
    border: 2px solid #1a7f37;
    border-radius: 10px;
    background: #dafbe1;
    color: #0f4d22;
  }
  .secret code {
    display: block;
    padding: 0.5rem 0.75rem;
    border: 1px solid #7ee2a8;
    border-radius: 6px;
    background: #fff;
    color: #1f2328;
    font-size: 0.9375rem;
    overflow-wrap: anywhere;
    user-select: all;
  }
`;

export interface SecretBox {
  /** `key`, `invitation` or `webhook`, reflected as `data-kind` for styles and tests. */
  kind: string;
  title: string;
  secret: string;
  /** What to do with it, and that it is not shown again. */
  note: string;
  copyLabel: string;
  /** What copying did: a sentence read out, or empty. */
  copied: string;
  copy: () => void;
  dismiss: () => void;
}

export function secretBox(b: SecretBox): TemplateResult {
  return html`<div class="secret" role="status" aria-labelledby="secret-title" data-kind=${b.kind}>
    <strong id="secret-title">${b.title}</strong>
    <code class="key">${b.secret}</code>
    <p>${b.note}</p>
    <div class="buttons">
      <button type="button" class="primary" data-action="copy" @click=${b.copy}>${b.copyLabel}</button>
      <button type="button" data-action="dismiss" @click=${b.dismiss}>Done</button>
    </div>
    <p class="copied" aria-live="polite">${b.copied}</p>
  </div>`;
}

/** Copies `text`; the sentence to read out, including what to do when the browser refuses. */
export async function copyText(text: string, what: string): Promise<string> {
  try {
    if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
    await navigator.clipboard.writeText(text);
    return 'Copied to the clipboard.';
  } catch {
    return `The browser did not let the page copy it: select the ${what} above and copy it yourself (Ctrl+C, or ⌘C on a Mac).`;
  }
}
