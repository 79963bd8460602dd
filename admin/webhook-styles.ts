import { css } from 'lit';

/**
 * The webhooks page's own styles, beside the console's shared ones: an endpoint a card (its host large, the whole URL
 * wrapping under it), its facts in a row that wraps, its events as chips, the form's choices one a line, and the
 * delivery log a table that becomes a card per delivery on a phone.
 */
export const webhookStyles = css`
  section {
    margin-block-end: 2rem;
  }
  section > h2 {
    margin-block: 0 0.75rem;
    font-size: 1.125rem;
  }
  .intro {
    max-inline-size: 48rem;
    margin-block-end: 1rem;
  }
  /* One column no wider than the page: a delivery log wider than its card scrolls inside it. */
  ul.endpoints {
    display: grid;
    grid-template-columns: minmax(0, 1fr);
    gap: 1rem;
    margin: 0;
    padding: 0;
    list-style: none;
  }
  .endpoint {
    display: grid;
    grid-template-columns: minmax(0, 1fr);
    gap: 0.75rem;
    min-inline-size: 0;
    padding: 1rem 1.25rem;
    border: 1px solid #d1d9e0;
    border-radius: 10px;
    background: #fff;
  }
  .endpoint .head {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.5rem 0.75rem;
  }
  .endpoint h3 {
    margin: 0;
    font-size: 1.125rem;
    overflow-wrap: anywhere;
  }
  .endpoint h3:focus {
    outline: none;
  }
  .url {
    margin: -0.5rem 0 0;
    color: #59636e;
    overflow-wrap: anywhere;
  }
  .facts {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem 2rem;
    margin: 0;
  }
  .facts div {
    display: grid;
    gap: 0.125rem;
    align-content: start;
    min-inline-size: 0;
  }
  .facts dt {
    color: #59636e;
    font-size: 0.8125rem;
  }
  .facts dd {
    margin: 0;
  }
  .facts .wide {
    flex: 1 1 16rem;
  }
  ul.chips {
    display: flex;
    flex-wrap: wrap;
    gap: 0.375rem;
    margin: 0;
    padding: 0;
    list-style: none;
  }
  ul.chips li {
    padding: 0 0.5rem;
    border: 1px solid #d1d9e0;
    border-radius: 999px;
    background: #f6f8fa;
    line-height: 1.5rem;
  }
  form {
    display: grid;
    gap: 1rem;
    max-inline-size: 48rem;
    padding: 1.25rem;
    border: 1px solid #d1d9e0;
    border-radius: 10px;
    background: #fff;
  }
  .endpoint form {
    padding: 1rem;
    background: #f6f8fa;
  }
  .grid {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr));
    gap: 1rem;
  }
  legend {
    margin-block-end: 0.5rem;
  }
  fieldset .hint {
    margin-block-end: 0.5rem;
  }
  .options {
    display: grid;
    gap: 0.375rem;
  }
  /* A choice a line, its box beside the first line of a label that may wrap. */
  .options .choice,
  .choice.all {
    display: flex;
    align-items: flex-start;
  }
  .options .choice input,
  .choice.all input {
    flex: none;
    margin-block-start: 0.25rem;
  }
  .choice.all {
    margin-block-end: 0.5rem;
    font-weight: 600;
  }
  .choice code {
    overflow-wrap: anywhere;
  }
  fieldset[aria-invalid='true'] {
    padding: 0.5rem;
    border-radius: 6px;
  }
  .toolbar h4 {
    margin: 0;
    font-size: 1rem;
    overflow-wrap: anywhere;
  }
  .toolbar {
    margin-block-end: 0.5rem;
  }
  .state.small {
    min-height: 5rem;
  }
  table.deliveries td,
  table.deliveries th {
    white-space: nowrap;
  }
  /* Times may take two lines, so the log and its Resend fit the card at 1280 px. */
  table.deliveries tbody th[scope='row'],
  table.deliveries td.when {
    white-space: normal;
    min-inline-size: 7rem;
  }
  table.deliveries td.error {
    min-inline-size: 8rem;
    white-space: normal;
    overflow-wrap: anywhere;
  }
  /* A delivery's card on a phone says only what it has: no rows of dashes. */
  @media (max-width: 40rem) {
    table.deliveries td.blank {
      display: none;
    }
  }
  .badge.pending {
    border-color: #54aeff;
    background: #ddf4ff;
    color: #0550ae;
  }
  section > .hint,
  .table-scroll + .hint {
    margin-block-start: 0.5rem;
  }
`;
