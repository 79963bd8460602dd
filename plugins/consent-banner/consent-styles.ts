import { css } from '../../src/plugin-api.js';

// Styled by the host through custom properties and ::part(); accept and reject look the same on purpose
// (equal prominence, as regulators ask).
export const consentStyles = css`
  :host {
    position: var(--svc-consent-position, fixed);
    inset: auto 0 0 0;
    z-index: var(--svc-consent-z-index, 2147483000);
    display: block;
    font: inherit;
  }
  :host(:not([open])) {
    display: none;
  }
  [part~='banner'] {
    box-sizing: border-box;
    max-width: var(--svc-consent-max-width, 48rem);
    margin: var(--svc-consent-margin, 0 auto 1rem);
    padding: var(--svc-consent-padding, 1.25rem);
    color: var(--svc-consent-color, #1d1d1f);
    background: var(--svc-consent-background, #fff);
    border: var(--svc-consent-border, 1px solid #c8c8cc);
    border-radius: var(--svc-consent-radius, 12px);
    box-shadow: var(--svc-consent-shadow, 0 8px 32px rgb(0 0 0 / 0.18));
  }
  h2 {
    margin: 0 0 0.5rem;
    font-size: var(--svc-consent-title-size, 1.125rem);
  }
  p {
    margin: 0 0 1rem;
  }
  fieldset {
    margin: 0 0 1rem;
    padding: 0;
    border: 0;
    display: grid;
    gap: 0.5rem;
  }
  legend {
    margin-bottom: 0.5rem;
    font-weight: 600;
  }
  [part~='actions'] {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
  }
  button {
    flex: 1 1 10rem;
    font: inherit;
    padding: 0.6rem 1rem;
    cursor: pointer;
    color: var(--svc-consent-button-color, #fff);
    background: var(--svc-consent-button-background, #12355b);
    border: var(--svc-consent-button-border, 2px solid #12355b);
    border-radius: var(--svc-consent-button-radius, 8px);
  }
  button[part~='customize'],
  button[part~='save'] {
    color: var(--svc-consent-secondary-color, #12355b);
    background: var(--svc-consent-secondary-background, transparent);
  }
  button:focus-visible,
  input:focus-visible {
    outline: var(--svc-consent-focus-outline, 3px solid #f5a623);
    outline-offset: 2px;
  }
`;
