import { css, html, LitElement, nothing } from 'lit';
import { adminStyles } from './admin-styles.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-confirm': SvcAdminConfirm;
  }
}

/** What to ask: a question, what will happen, and optionally one choice to make first (a winner). */
export interface ConfirmRequest {
  title: string;
  /** The sentence of what will happen; gets the current choice when there are choices. */
  describe: (choice: string | undefined) => string;
  /** The confirm button's label; gets the current choice too. */
  confirmLabel: (choice: string | undefined) => string;
  choices?: { legend: string; options: string[]; initial?: string };
  /** What to know before confirming (the results of the choice), said above the consequence; gets the current choice. */
  facts?: (choice: string | undefined) => string[];
  /** Red confirm button: the step removes something. */
  danger?: boolean;
}

/**
 * `<svc-admin-confirm>`: a modal confirmation in a native `<dialog>`. `ask()` opens it (the browser makes the rest of
 * the page inert and moves focus in; Escape cancels) and resolves with the choice once confirmed, `null` if cancelled.
 *
 * @tagname svc-admin-confirm
 * @summary The console's confirmation dialog.
 *
 * @example
 * const answer = await dialog.ask({ title: 'Stop hero?', describe: () => 'Nobody will get it.', confirmLabel: () => 'Stop' });
 */
export class SvcAdminConfirm extends LitElement {
  static override styles = [adminStyles, css`
    dialog {
      box-sizing: border-box;
      inline-size: min(32rem, calc(100vw - 2rem));
      padding: 1.25rem;
      border: 1px solid #d1d9e0;
      border-radius: 10px;
      color: inherit;
      box-shadow: 0 12px 40px rgb(31 35 40 / 0.25);
    }
    dialog::backdrop {
      background: rgb(31 35 40 / 0.45);
    }
    form {
      display: grid;
      gap: 1rem;
    }
    fieldset {
      display: grid;
      gap: 0.5rem;
    }
    legend {
      margin-block-end: 0.5rem;
    }
    .facts {
      margin: 0;
      padding-inline-start: 1.25rem;
    }
    #what p {
      margin: 0.5rem 0 0;
    }
    .actions {
      display: flex;
      flex-wrap: wrap;
      justify-content: flex-end;
      gap: 0.5rem;
    }
    button.primary.danger {
      border-color: #cf222e;
      background: #cf222e;
      color: #fff;
    }
  `];

  static override properties = {
    request: { state: true },
    choice: { state: true },
  };

  declare request: ConfirmRequest | undefined;
  declare choice: string | undefined;
  #answer: ((choice: { choice: string | undefined } | null) => void) | undefined;

  /** Opens the dialog; resolves `{choice}` when confirmed, `null` when cancelled (button or Escape). */
  async ask(request: ConfirmRequest): Promise<{ choice: string | undefined } | null> {
    this.#answer?.(null); // a question still open is cancelled by the new one
    this.request = request;
    this.choice = request.choices ? (request.choices.initial ?? request.choices.options[0]) : undefined;
    await this.updateComplete;
    const dialog = this.renderRoot.querySelector('dialog')!;
    dialog.returnValue = '';
    dialog.showModal();
    // The choice to make first, else the confirm button: what the user came to do is one key away, Escape backs out.
    const target = this.renderRoot.querySelector<HTMLElement>('input:checked') ?? this.renderRoot.querySelector<HTMLElement>('button[value="confirm"]');
    target?.focus();
    return new Promise((resolve) => (this.#answer = resolve));
  }

  override render() {
    const r = this.request;
    return html`<dialog aria-labelledby="title" aria-describedby="what" @close=${this.#closed}>
      ${r
        ? html`<form method="dialog">
            <h2 id="title">${r.title}</h2>
            ${r.choices
              ? html`<fieldset>
                  <legend>${r.choices.legend}</legend>
                  ${r.choices.options.map((option) => html`<label class="choice">
                    <input type="radio" name="choice" .value=${option} .checked=${option === this.choice}
                      @change=${() => (this.choice = option)}>
                    ${option}</label>`)}
                </fieldset>`
              : nothing}
            <div id="what" aria-live="polite">${this.#facts(r)}<p>${r.describe(this.choice)}</p></div>
            <div class="actions">
              <button type="submit" value="cancel" formnovalidate>Cancel</button>
              <button type="submit" value="confirm" class=${r.danger ? 'primary danger' : 'primary'}>${r.confirmLabel(this.choice)}</button>
            </div>
          </form>`
        : nothing}
    </dialog>`;
  }

  #facts(r: ConfirmRequest) {
    const facts = r.facts?.(this.choice) ?? [];
    return facts.length ? html`<ul class="facts">${facts.map((f) => html`<li>${f}</li>`)}</ul>` : nothing;
  }

  #closed(): void {
    const dialog = this.renderRoot.querySelector('dialog')!;
    // `close` is dispatched a task after the dialog closed: asked again quickly (Delete right after Cancel), the dialog
    // is open once more by then, and that late event is the last question's, already answered by ask().
    if (dialog.open) return;
    const answer = this.#answer;
    this.#answer = undefined;
    answer?.(dialog.returnValue === 'confirm' ? { choice: this.choice } : null);
  }
}
