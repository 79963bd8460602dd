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
 * hides itself once a valid choice exists and asks again when it expires, or after `svc.forget()`; `show()` reopens it.
 * While the browser sends Global Privacy Control, the categories that sell or share data are refused without asking
 * (the decision is recorded with source `gpc`), the banner says so, and their switches stay off.
 * Texts come from attributes (`title`, `message`, `accept-label`, `reject-label`, `customize-label`,
 * `save-label`) or slots (`title`, `message`, and `privacy` for the policy link), else from `lang`
 * (en, de, fr, es). Not shown when the page has an IAB TCF CMP: its decision applies instead.
 *
 * @tagname svc-consent
 * @summary The consent banner: accept all, reject all, or a switch per category.
 *
 * @attr open - Reflected: the banner shows while it is present. Set by the element when no valid choice exists
 *   (and the page has no TCF CMP), removed once the visitor decides; `show()` sets it again.
 * @attr status - Reflected, read-only: `loading` until an SDK instance with the `consentBanner()` plugin
 *   registers, then `ready`.
 * @attr title - The banner's heading; default: the built-in text of the language.
 * @attr message - The banner's text; default: the built-in text of the language.
 * @attr accept-label - Label of the accept-all button.
 * @attr reject-label - Label of the reject-all button.
 * @attr customize-label - Label of the customize button, and the legend of the category switches.
 * @attr save-label - Label of the button that saves the switches as set.
 * @attr valid-days - How many days a choice holds before the visitor is asked again (default 180).
 * @attr version - The version of the banner's text, as you name it (`version="2026-11"`): kept with each decision as proof of what
 *   the visitor was shown.
 * @attr lang - Language of the built-in texts (`en`, `de`, `fr`, `es`); default: the document's.
 *
 * @slot title - The heading, instead of the `title` attribute or built-in text.
 * @slot message - The banner's text, instead of the `message` attribute or built-in text.
 * @slot privacy - A link to the privacy policy, after the message.
 *
 * @fires svc:consent - On `window`, from the SDK instance, when the visitor decides; `detail` is
 *   `{eventName: 'Consent', event}` with `event.data` `{action, validUntil, categories, source: 'banner'}`.
 * @fires svc:consent-change - On `window`, from the SDK instance, after `svc:consent`; `detail` is
 *   `{categories, validUntil, action, source}`.
 * @fires svc:event - On `window`, from the SDK instance, with `svc:consent` when the decision allows tracking.
 *
 * @csspart banner - The banner (a `role="region"` landmark).
 * @csspart title - The heading.
 * @csspart gpc - What the banner says while the browser sends Global Privacy Control (the categories that sell or
 *   share data are refused without asking; their switches are off and locked).
 * @csspart message - The paragraph of the message and the privacy link.
 * @csspart categories - The category switches, shown while customizing.
 * @csspart category - One category's switch and its label.
 * @csspart actions - The row of buttons.
 * @csspart button - Every button; each also has its own part: `reject`, `accept`, `customize`, `save`.
 * @csspart reject - The reject-all button.
 * @csspart accept - The accept-all button.
 * @csspart customize - The button that shows the category switches.
 * @csspart save - The button that saves the switches as set, shown while customizing.
 *
 * @cssprop [--svc-consent-position=fixed] - The host's `position`; e.g. `static` to place the banner in the flow.
 * @cssprop [--svc-consent-z-index=2147483000] - The host's stacking order.
 * @cssprop [--svc-consent-max-width=48rem] - The banner's maximum width.
 * @cssprop [--svc-consent-margin=0 auto 1rem] - The banner's margin.
 * @cssprop [--svc-consent-padding=1.25rem] - The banner's padding.
 * @cssprop [--svc-consent-color=#1d1d1f] - Text colour.
 * @cssprop [--svc-consent-background=#fff] - The banner's background.
 * @cssprop [--svc-consent-border=1px solid #c8c8cc] - The banner's border.
 * @cssprop [--svc-consent-radius=12px] - The banner's corner radius.
 * @cssprop [--svc-consent-shadow=0 8px 32px rgb(0 0 0 / 0.18)] - The banner's shadow.
 * @cssprop [--svc-consent-title-size=1.125rem] - Font size of the heading.
 * @cssprop [--svc-consent-button-color=#fff] - Text colour of the accept and reject buttons.
 * @cssprop [--svc-consent-button-background=#12355b] - Background of the accept and reject buttons.
 * @cssprop [--svc-consent-button-border=2px solid #12355b] - Border of every button.
 * @cssprop [--svc-consent-button-radius=8px] - Corner radius of every button.
 * @cssprop [--svc-consent-secondary-color=#12355b] - Text colour of the customize and save buttons.
 * @cssprop [--svc-consent-secondary-background=transparent] - Background of the customize and save buttons.
 * @cssprop [--svc-consent-focus-outline=3px solid #f5a623] - Focus outline of the buttons and switches.
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
      // A TCF CMP asks the visitor itself; a valid choice needs no asking (one Global Privacy Control made still does).
      this.open = !tcfApi() && (control.current()?.source ?? 'gpc') === 'gpc';
    });
    window.addEventListener('svc:forget', this.#forgotten);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#unwatch?.();
    window.removeEventListener('svc:forget', this.#forgotten);
  }

  /** `svc.forget()`: the visitor is asked again, as on a first visit. */
  readonly #forgotten = (): void => {
    this.choices = this.#initialChoices();
    this.open = !tcfApi();
  };

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
    const gpc = this.#control?.gpc ?? [];
    return html`<section part="banner" role="region" aria-labelledby="title" aria-describedby="message">
      <h2 id="title" part="title"><slot name="title">${this.heading ?? t.title}</slot></h2>
      <p id="message" part="message"><slot name="message">${this.message ?? t.message}</slot> <slot name="privacy"></slot></p>
      ${gpc.length > 0 ? html`<p part="gpc">${t.gpc}</p>` : nothing}
      ${this.customizing
        ? html`<fieldset part="categories"><legend>${this.customizeLabel ?? t.customize}</legend>
            ${categories.map((c) => html`<label part="category"><input type="checkbox" role="switch" name=${c}
              .checked=${c === 'necessary' || this.choices[c] === true} ?disabled=${c === 'necessary' || gpc.includes(c)}
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
    // The `version` attribute names the banner's text: kept with each decision (read when deciding, nothing renders it).
    control.decide(categories, Date.now() + this.validDays * DAY_MS, 'banner', this.getAttribute('version') || undefined);
    this.open = false;
    this.#returnFocus?.focus();
    this.#returnFocus = null;
  }

  #initialChoices(): Record<string, boolean> {
    return { ...(this.#control?.current()?.categories ?? {}) };
  }
}
