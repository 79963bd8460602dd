// A password being typed may be shown (ASVS 2.1.12): a "Show" button after each password field turns it into a
// text field and back. The fields themselves keep their ids, names and autocomplete; those that can be shown also
// turn off spell checking and autocorrect, so that a password shown as text is neither sent to a spelling service nor
// changed as it is typed.
import { html, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';

/**
 * Which of an element's password fields are shown, by id. The element asks `type(id)` for each field's type, renders
 * `button(id)` after it, and calls `hideAll()` when it sends the form: a password is sent from a password field, which
 * browsers keep out of their form history.
 *
 * @example
 * #reveal = new PasswordReveal(this);
 * html`<div class="password-input">
 *   <input id="password" type=${this.#reveal.type('password')}>${this.#reveal.button('password')}
 * </div>`
 */
export class PasswordReveal implements ReactiveController {
  readonly #host: ReactiveControllerHost;
  readonly #shown = new Set<string>();

  constructor(host: ReactiveControllerHost) {
    this.#host = host;
    host.addController(this);
  }

  /** An element taken off the page and put back shows its passwords hidden again. */
  hostDisconnected(): void {
    this.#shown.clear();
  }

  /** `text` while the field is shown, else `password`. */
  type(id: string): 'text' | 'password' {
    return this.#shown.has(id) ? 'text' : 'password';
  }

  toggle(id: string): void {
    if (!this.#shown.delete(id)) this.#shown.add(id);
    this.#host.requestUpdate();
  }

  hideAll(): void {
    if (!this.#shown.size) return;
    this.#shown.clear();
    this.#host.requestUpdate();
  }

  /**
   * The toggle for field `id`. Its name says what a press does next ("Hide password" while it shows); no aria-pressed,
   * which would contradict a name that changes (GOV.UK's password input does the same).
   */
  button(id: string): TemplateResult {
    const shown = this.#shown.has(id);
    return html`<button type="button" class="reveal" data-reveal=${id} aria-controls=${id}
      aria-label=${shown ? 'Hide password' : 'Show password'} @click=${() => this.toggle(id)}>${shown ? 'Hide' : 'Show'}</button>`;
  }
}
