import type { ConsentControl } from '../../src/index.js';
import { h, SvcElement } from '../../src/plugin-api.js';
import { type BannerLanguage, bannerLanguage } from './banner-language.js';
import { watchConsentControl } from './consent-control.js';
import { consentStyles } from './consent-styles.js';
import type { ConsentTexts } from './consent-texts.js';
import { loadTexts } from './load-texts.js';
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
 * (en, de, fr, es): the built-in texts of each language are a module of their own, loaded when the banner first
 * renders (and again when `lang` changes); the banner stays empty until they have come, and shows English if its
 * language's module fails to load. Not shown when the page has an IAB TCF CMP: its decision applies instead.
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
 * @attr lang - Language of the built-in texts (`en`, `de`, `fr`, `es`, by its first two letters; others are English);
 *   default: the document's. A change loads that language's texts and renders the banner in it (in the previous
 *   language meanwhile).
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
export class SvcConsent extends SvcElement {
  static override styles = consentStyles;
  // What the banner shows comes from these; `valid-days` and `version` are read when the visitor decides.
  static observedAttributes = ['title', 'message', 'accept-label', 'reject-label', 'customize-label', 'save-label', 'lang'];

  #control: ConsentControl | undefined;
  #unwatch: (() => void) | undefined;
  #returnFocus: HTMLElement | null = null;
  #customizing = false;
  #choices: Record<string, boolean> = {};
  /** The language whose texts were asked for last, and those shown (the previous language's while the next loads). */
  #language: BannerLanguage | undefined;
  #texts: ConsentTexts | undefined;
  #loading: Promise<void> | undefined;

  /** Whether the banner shows; reflects the `open` attribute. */
  get open(): boolean {
    return this.hasAttribute('open');
  }

  set open(value: boolean) {
    this.toggleAttribute('open', value);
  }

  /** `loading` until an SDK instance with the `consentBanner()` plugin registers, then `ready`; the `status` attribute. */
  get status(): 'loading' | 'ready' {
    return (this.getAttribute('status') as 'ready' | null) ?? 'loading';
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#unwatch = watchConsentControl((control) => {
      this.#control = control;
      if (!control) return;
      this.setAttribute('status', 'ready');
      // A TCF CMP asks the visitor itself; a valid choice needs no asking (one Global Privacy Control made still does).
      this.#ask(!tcfApi() && (control.current()?.source ?? 'gpc') === 'gpc');
    });
    // Reflected from the start: `loading` until a control registers (which may have happened just now).
    this.setAttribute('status', this.status);
    window.addEventListener('svc:forget', this.#forgotten);
  }

  disconnectedCallback(): void {
    this.#unwatch?.();
    window.removeEventListener('svc:forget', this.#forgotten);
  }

  /** Resolves once the banner has rendered, its language's texts loaded first: then its shadow DOM can be read. */
  override get updateComplete(): Promise<boolean> {
    const settled = async (): Promise<boolean> => {
      await super.updateComplete;
      return this.#loading ? this.#loading.then(settled) : true;
    };
    return settled();
  }

  /** `svc.forget()`: the visitor is asked again, as on a first visit. */
  readonly #forgotten = (): void => this.#ask(!tcfApi());

  /** Reopens the banner (from a "Cookie settings" link); focus moves into it and returns afterwards. */
  async show(): Promise<void> {
    this.#returnFocus = document.activeElement as HTMLElement | null;
    this.#customizing = false;
    this.#ask(true);
    await this.updateComplete;
    this.renderRoot.querySelector('button')?.focus();
  }

  /** Shows or hides the banner, its switches set as the remembered choice has them. */
  #ask(open: boolean): void {
    this.#choices = { ...this.#control?.current()?.categories };
    this.open = open;
    this.requestUpdate();
  }

  protected update(): void {
    const language = bannerLanguage(this);
    if (language !== this.#language) {
      this.#language = language;
      const loading: Promise<void> = (this.#loading = loadTexts(language).then((texts) => {
        if (this.#loading !== loading) return; // another language was asked for meanwhile
        this.#loading = undefined;
        this.#texts = texts ?? this.#texts;
        this.requestUpdate();
      }));
    }
    const t = this.#texts;
    // Nothing before the texts of its language have come; their arrival renders again.
    if (this.#loading || !t) return;
    this.renderChildren(h('section', { part: 'banner', role: 'region', 'aria-labelledby': 'title', 'aria-describedby': 'message' },
      h('h2', { id: 'title', part: 'title' }, h('slot', { name: 'title' }, this.getAttribute('title') ?? t.title)),
      h('p', { id: 'message', part: 'message' }, h('slot', { name: 'message' }, this.getAttribute('message') ?? t.message), ' ', h('slot', { name: 'privacy' })),
      this.#control?.gpc.length ? h('p', { part: 'gpc' }, t.gpc) : null,
      h('div', { part: 'actions' },
        button({ part: 'button reject', onclick: () => this.#decide(false) }, this.getAttribute('reject-label') ?? t.reject),
        button({ part: 'button accept', onclick: () => this.#decide(true) }, this.getAttribute('accept-label') ?? t.accept),
        button({ part: 'button customize', 'aria-expanded': 'false', onclick: this.#customize }, this.getAttribute('customize-label') ?? t.customize)),
    ));
    if (this.#customizing) this.#showSwitches(t);
  }

  /**
   * The category switches and, instead of Customize, Save; the rest of the banner stays as it is. `necessary` is
   * always on, and the categories Global Privacy Control refused stay off.
   */
  #showSwitches(t: ConsentTexts): void {
    const gpc = this.#control?.gpc ?? [];
    const actions = this.renderRoot.querySelector('[part=actions]')!;
    actions.before(h('fieldset', { part: 'categories' }, h('legend', {}, this.getAttribute('customize-label') ?? t.customize),
      ...(this.#control?.categories ?? []).map((c) => h('label', { part: 'category' },
        h('input', {
          type: 'checkbox', role: 'switch', name: c, checked: c === 'necessary' || this.#choices[c] === true,
          disabled: c === 'necessary' || gpc.includes(c), onchange: (e: Event) => (this.#choices[c] = (e.target as HTMLInputElement).checked),
        }),
        ' ', t.categories[c] ?? c))));
    actions.lastElementChild!.replaceWith(button({ part: 'button save', onclick: () => this.#decide(null) }, this.getAttribute('save-label') ?? t.save));
  }

  /** Customize: the switches, and focus on the first that can change. */
  readonly #customize = (): void => {
    this.#customizing = true;
    this.#showSwitches(this.#texts!);
    this.renderRoot.querySelector<HTMLInputElement>('input:not([disabled])')?.focus();
  };

  /** `true` accept all, `false` reject all, `null` the switches as set. */
  #decide(all: boolean | null): void {
    const control = this.#control;
    if (!control) return;
    const categories = Object.fromEntries(
      control.categories.map((c) => [c, c === 'necessary' || (all ?? this.#choices[c] === true)]),
    );
    // `valid-days` and `version` (the name of the banner's text, kept with each decision) are read when deciding.
    control.decide(categories, Date.now() + Number(this.getAttribute('valid-days') ?? 180) * DAY_MS, 'banner', this.getAttribute('version') || undefined);
    this.open = false;
    this.#returnFocus?.focus();
    this.#returnFocus = null;
  }
}

/** One of the banner's buttons (a real `<button>`, never a submit one). */
function button(attributes: Record<string, unknown>, label: string): HTMLButtonElement {
  return h('button', { type: 'button', ...attributes }, label);
}
