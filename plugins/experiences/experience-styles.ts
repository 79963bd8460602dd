import { css } from 'lit';

// The host page styles the content (it stays in the light DOM); this only decides what shows.
export const experienceStyles = css`
  :host {
    display: var(--svc-experience-display, block);
  }
  :host([hidden]) {
    display: none;
  }
  /* The fallback while the loader's first answer is awaited: not painted, its box kept (nothing shifts). */
  .hold {
    visibility: hidden;
  }
`;
