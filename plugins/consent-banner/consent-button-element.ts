import { h } from '../../src/plugin-api.js';
import type { SvcConsent } from './consent-element.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-consent-button': SvcConsentButton;
  }
}

/**
 * `<svc-consent-button>Cookie settings</svc-consent-button>` reopens the page's `<svc-consent>` banner.
 * It wraps a real `<button>` (light DOM, so the host page styles it) around its text.
 *
 * It has no shadow root, hence no slots and no shadow parts: its children move into the button (`Cookie settings`
 * when it has none), and the page styles that button with an ordinary selector (`svc-consent-button > button`).
 * The button's `part="button"` counts only for an enclosing shadow root. It fires no event of its own; the banner
 * it reopens fires the SDK's consent events once the visitor decides.
 *
 * @tagname svc-consent-button
 * @summary A button that reopens the page's consent banner.
 *
 * @example
 * <a href="/privacy">Privacy</a> · <svc-consent-button>Cookie settings</svc-consent-button>
 */
export class SvcConsentButton extends HTMLElement {
  connectedCallback(): void {
    if (this.querySelector('button')) return;
    const button = h('button', { type: 'button', part: 'button', onclick: () => void document.querySelector<SvcConsent>('svc-consent')?.show() },
      ...this.childNodes);
    if (!button.textContent?.trim()) button.textContent = 'Cookie settings';
    this.append(button);
  }
}
