import { css } from '../../src/plugin-api.js';

// The built-in cards. The host page restyles them through custom properties and ::part(list|item|link|
// image|title|price); a page's own <template> renders in the light DOM and is styled by the page itself.
export const recommendationsStyles = css`
  :host {
    display: block;
  }
  :host([hidden]) {
    display: none;
  }
  /* Settled empty or failed: the cards' box stays, empty, after the state's slot (unless collapse is set). */
  :host(:is([status='empty'], [status='error'])) ul {
    visibility: hidden;
  }
  :host([collapse]:is([status='empty'], [status='error'])) ul {
    display: none;
  }
  /* Ready with fewer products than limit: the cells of those that did not come stay, unseen, so the box keeps the
     size of limit cards and nothing below moves (unless collapse is set). */
  .unfilled {
    visibility: hidden;
  }
  :host([collapse]) .unfilled {
    display: none;
  }

  ul {
    display: grid;
    grid-template-columns: repeat(auto-fill, minmax(var(--svc-recommendations-min-width, 10rem), 1fr));
    gap: var(--svc-recommendations-gap, 1rem);
    margin: 0;
    padding: 0;
    list-style: none;
  }
  a {
    display: grid;
    align-content: start;
    gap: 0.25rem;
    box-sizing: border-box;
    height: 100%;
    padding: var(--svc-recommendations-padding, 0.75rem);
    color: inherit;
    border: var(--svc-recommendations-border, 1px solid #c8c8cc);
    border-radius: var(--svc-recommendations-radius, 8px);
    text-decoration: none;
  }
  [part='image'] {
    display: block;
    width: 100%;
    aspect-ratio: 1;
    object-fit: cover;
  }
  /* A card's height does not depend on its product: two lines of title, one of price. */
  [part='title'] {
    height: 2lh;
    overflow: hidden;
  }
  [part='price'] {
    height: 1lh;
    font-weight: 600;
  }
`;
