import { html, LitElement, nothing } from 'lit';
import type { ConsentControl } from '../../src/index.js';
import { watchConsentControl } from './consent-control.js';
import { consentStyles } from './consent-styles.js';
import { textsFor } from './consent-texts.js';
import { tcfApi } from './tcf-bridge.js';

const DAY_MS = 24 * 60 * 60 * 1000;

declare global {
  interface HTMLElementTagNameMap {
    'svc-consent': SvcConsent;
  }
}

/**
 * `<svc-consent>`: the consent banner. Accept all / Reject all / Customize with a switch per category;
 * hides itself once a valid choice exists and asks again when it expires; `show()` reopens it.
 * Texts come from attributes (`title`, `message`, `accept-label`, `reject-label`, `customize-label`,
 * `save-label`) or slots (`title`, `message`, and `privacy` for the policy link), else from `lang`
 * (en, de, fr, es). Not shown when the page has an IAB TCF CMP: its decision applies instead.
 *
 * @example
 * <svc-consent lang="de"><a slot="privacy" href="/datenschutz">Datenschutz</a></svc-consent>
 */
export class SvcConsent extends LitElement {
  static override styles = consentStyles;
  static override properties = {
    open: { type: Boolean, reflect: true },
    status: { type: String, reflect: true },
    heading: { type: String, attribute: 'title' },
    message: { type: String },
    acceptLabel: { type: String, attribute: 'accept-label' },
    rejectLabel: { type: String, attribute: 'reject-label' },
    customizeLabel: { type: String, attribute: 'customize-label' },
    saveLabel: { type: String, attribute: 'save-label' },
    validDays: { type: Number, attribute: 'valid-days' },
    customizing: { state: true },
    choices: { state: true },
  };

  declare open: boolean;
  declare status: 'loading' | 'ready';
  declare heading: string | undefined;
  declare message: string | undefined;
  declare acceptLabel: string | undefined;
  declare rejectLabel: string | undefined;
  declare customizeLabel: string | undefined;
  declare saveLabel: string | undefined;
  /** How long a choice holds before the visitor is asked again. */
  declare validDays: number;
  declare customizing: boolean;
  declare choices: Record<string, boolean>;
  #control: ConsentControl | undefined;
  #unwatch: (() => void) | undefined;
  #returnFocus: HTMLElement | null = null;

  constructor() {
    super();
    this.open = false;
    this.status = 'loading';
    this.validDays = 180;
    this.customizing = false;
    this.choices = {};
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#unwatch = watchConsentControl((control) => {
      this.#control = control;
      if (!control) return;
      this.status = 'ready';
      this.choices = this.#initialChoices();
      // A TCF CMP asks the visitor itself; a valid choice needs no asking.
      this.open = !tcfApi() && control.current() === null;
    });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#unwatch?.();
  }

  /** Reopens the banner (from a "Cookie settings" link); focus moves into it and returns afterwards. */
  async show(): Promise<void> {
    this.#returnFocus = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    this.choices = this.#initialChoices();
    this.customizing = false;
    this.open = true;
    await this.updateComplete;
    this.shadowRoot?.querySelector<HTMLButtonElement>('button')?.focus();
  }

  override render() {
    const t = textsFor(this.lang || document.documentElement.lang);
    const categories = this.#control?.categories ?? [];
    return html`<section part="banner" role="region" aria-labelledby="title" aria-describedby="message">
      <h2 id="title" part="title"><slot name="title">${this.heading ?? t.title}</slot></h2>
      <p id="message" part="message"><slot name="message">${this.message ?? t.message}</slot> <slot name="privacy"></slot></p>
      ${this.customizing
        ? html`<fieldset part="categories"><legend>${this.customizeLabel ?? t.customize}</legend>
            ${categories.map((c) => html`<label part="category"><input type="checkbox" role="switch" name=${c}
              .checked=${c === 'necessary' || this.choices[c] === true} ?disabled=${c === 'necessary'}
              @change=${(e: Event) => (this.choices = { ...this.choices, [c]: (e.target as HTMLInputElement).checked })}>
              ${t.categories[c] ?? c}</label>`)}
          </fieldset>`
        : nothing}
      <div part="actions">
        <button type="button" part="button reject" @click=${() => this.#decide(false)}>${this.rejectLabel ?? t.reject}</button>
        <button type="button" part="button accept" @click=${() => this.#decide(true)}>${this.acceptLabel ?? t.accept}</button>
        ${this.customizing
          ? html`<button type="button" part="button save" @click=${() => this.#decide(null)}>${this.saveLabel ?? t.save}</button>`
          : html`<button type="button" part="button customize" aria-expanded="false" @click=${this.#customize}>${this.customizeLabel ?? t.customize}</button>`}
      </div>
    </section>`;
  }

  async #customize(): Promise<void> {
    this.customizing = true;
    await this.updateComplete;
    this.shadowRoot?.querySelector<HTMLInputElement>('input:not([disabled])')?.focus();
  }

  /** `true` accept all, `false` reject all, `null` the switches as set. */
  #decide(all: boolean | null): void {
    const control = this.#control;
    if (!control) return;
    const categories = Object.fromEntries(
      control.categories.map((c) => [c, c === 'necessary' || (all ?? this.choices[c] === true)]),
    );
    control.decide(categories, Date.now() + this.validDays * DAY_MS, 'banner');
    this.open = false;
    this.#returnFocus?.focus();
    this.#returnFocus = null;
  }

  #initialChoices(): Record<string, boolean> {
    return { ...(this.#control?.current()?.categories ?? {}) };
  }
}
