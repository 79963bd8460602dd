import { css } from '../../src/plugin-api.js';

// The host page styles the content (it stays in the light DOM); this only decides what shows.
export const experienceStyles = css`
  :host {
    display: var(--svc-experience-display, block);
  }
  :host([hidden]) {
    display: none;
  }
  /* The fallback while the loader's answer is awaited (it set data-svc-wait): not painted, its box kept. */
  :host([data-svc-wait]) slot {
    visibility: hidden;
  }
`;
