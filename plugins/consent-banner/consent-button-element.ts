import type { SvcConsent } from './consent-element.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-consent-button': SvcConsentButton;
  }
}

/**
 * `<svc-consent-button>Cookie settings</svc-consent-button>` reopens the page's `<svc-consent>` banner.
 * It wraps a real `<button>` (light DOM, so the host page styles it) around its text.
 */
export class SvcConsentButton extends HTMLElement {
  connectedCallback(): void {
    if (this.querySelector('button')) return;
    const button = document.createElement('button');
    button.type = 'button';
    button.part.add('button');
    button.append(...this.childNodes);
    if (!button.textContent?.trim()) button.textContent = 'Cookie settings';
    button.addEventListener('click', () => void document.querySelector<SvcConsent>('svc-consent')?.show());
    this.append(button);
  }
}
