import { css } from 'lit';

// What every view of the console shares: type, buttons, form fields, tables, badges, messages. The palette is
// <svc-results>' (plugins/results/results-styles.ts) so the results read as part of the console; text colours keep a
// 4.5:1 contrast on their backgrounds, input borders 3:1.
export const adminStyles = css`
  :host {
    display: block;
    color: #1f2328;
    font: 0.9375rem/1.5 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  }
  :host([hidden]) {
    display: none;
  }
  /* A class that sets display (.buttons is flex) would otherwise show what the hidden attribute hides. */
  [hidden] {
    display: none !important;
  }
  h1,
  h2,
  p {
    margin: 0;
  }
  h1 {
    font-size: 1.375rem;
    font-weight: 600;
    line-height: 1.3;
    overflow-wrap: anywhere;
  }
  h1:focus {
    outline: none;
  }
  h2 {
    font-size: 1.0625rem;
    font-weight: 600;
  }
  code,
  pre,
  .mono {
    font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
    font-size: 0.875em;
  }
  .muted,
  .hint {
    color: #59636e;
  }
  .hint {
    font-size: 0.8125rem;
  }
  .toolbar {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    justify-content: space-between;
    gap: 0.75rem 1rem;
    margin-block-end: 1rem;
  }
  .toolbar .buttons,
  .buttons {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
  }
  button {
    box-sizing: border-box;
    min-height: 2.25rem;
    padding: 0.375rem 0.875rem;
    border: 1px solid #d1d9e0;
    border-radius: 6px;
    background: #f6f8fa;
    color: #1f2328;
    font: inherit;
    font-weight: 500;
    line-height: 1.4;
    cursor: pointer;
    white-space: nowrap;
  }
  button:hover:not(:disabled) {
    background: #eef1f4;
    border-color: #c2cbd4;
  }
  button.primary {
    border-color: #0969da;
    background: #0969da;
    color: #fff;
  }
  button.primary:hover:not(:disabled) {
    border-color: #0757b5;
    background: #0757b5;
  }
  button.danger {
    color: #b3141f;
  }
  button.small {
    min-height: 2rem;
    padding: 0.25rem 0.625rem;
    font-size: 0.8125rem;
  }
  button:disabled {
    opacity: 0.55;
    cursor: not-allowed;
  }
  :focus-visible {
    outline: 2px solid #0969da;
    outline-offset: 2px;
  }
  label,
  legend {
    font-weight: 600;
  }
  .field {
    display: grid;
    gap: 0.25rem;
    align-content: start;
  }
  input:not([type='checkbox'], [type='radio']),
  select,
  textarea {
    box-sizing: border-box;
    inline-size: 100%;
    min-height: 2.25rem;
    padding: 0.375rem 0.5rem;
    border: 1px solid #818b98;
    border-radius: 6px;
    background: #fff;
    color: inherit;
    font: inherit;
  }
  input[type='checkbox'],
  input[type='radio'] {
    inline-size: 1rem;
    block-size: 1rem;
    margin: 0;
    accent-color: #0969da;
  }
  textarea.json {
    min-height: 5.5rem;
    font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
    font-size: 0.8125rem;
    line-height: 1.45;
    resize: vertical;
  }
  /* A password field and its Show button on one line; the button keeps its width as Show turns into Hide. */
  .password-input {
    display: flex;
    gap: 0.5rem;
  }
  .password-input input {
    flex: 1;
    min-inline-size: 0;
  }
  .password-input button {
    min-inline-size: 4.5rem;
  }
  [aria-invalid='true'] {
    border-color: #cf222e !important;
    box-shadow: 0 0 0 1px #cf222e;
  }
  .field-error {
    color: #b3141f;
    font-size: 0.8125rem;
    overflow-wrap: anywhere;
  }
  fieldset {
    min-inline-size: 0;
    margin: 0;
    padding: 0;
    border: 0;
  }
  legend {
    padding: 0;
  }
  .choice {
    display: inline-flex;
    align-items: center;
    gap: 0.5rem;
    font-weight: 400;
  }
  .table-scroll {
    /* The containing block of the visually hidden texts in its cells, which would otherwise widen the page. */
    position: relative;
    overflow-x: auto;
    border: 1px solid #d1d9e0;
    border-radius: 6px;
    background: #fff;
  }
  table {
    inline-size: 100%;
    border-collapse: collapse;
  }
  th,
  td {
    padding: 0.5rem 0.75rem;
    border-block-start: 1px solid #d1d9e0;
    text-align: start;
    vertical-align: top;
  }
  thead th {
    border-block-start: 0;
    background: #f6f8fa;
    color: #59636e;
    font-size: 0.8125rem;
    font-weight: 600;
    white-space: nowrap;
  }
  tbody th {
    font-weight: 600;
  }
  .num {
    text-align: end;
    font-variant-numeric: tabular-nums;
  }
  /* A table of class cards is a card per row on a phone: each cell then shows its column's name. */
  .cell-label {
    display: none;
  }
  @media (max-width: 40rem) {
    table.cards,
    table.cards tbody,
    table.cards tr,
    table.cards td,
    table.cards tbody th {
      display: block;
    }
    table.cards thead {
      display: none;
    }
    table.cards tr {
      display: grid;
      gap: 0.375rem;
      padding: 0.75rem;
    }
    table.cards tr + tr {
      border-block-start: 1px solid #d1d9e0;
    }
    table.cards td,
    table.cards tbody th {
      padding: 0;
      border: 0;
      white-space: normal;
    }
    table.cards tbody th {
      order: -1;
      font-size: 1rem;
    }
    table.cards td {
      display: flex;
      gap: 0.75rem;
      text-align: start;
    }
    table.cards .cell-label {
      display: block;
      flex: 0 0 5.5rem;
      color: #59636e;
      font-size: 0.8125rem;
      line-height: 1.6rem;
    }
    table.cards td.wide {
      display: block;
      margin-block-start: 0.25rem;
    }
  }
  .badge {
    display: inline-block;
    padding: 0 0.5rem;
    border: 1px solid #d1d9e0;
    border-radius: 999px;
    background: #f6f8fa;
    color: #59636e;
    font-size: 0.75rem;
    font-weight: 600;
    line-height: 1.5rem;
    white-space: nowrap;
  }
  .badge.running,
  .badge.create {
    border-color: #7ee2a8;
    background: #dafbe1;
    color: #116329;
  }
  .badge.stopped,
  .badge.update {
    border-color: #eac54f;
    background: #fff8c5;
    color: #6c4400;
  }
  .badge.delete,
  .badge.stop {
    border-color: #ffcecb;
    background: #ffebe9;
    color: #a40e26;
  }
  .alert {
    padding: 0.75rem 1rem;
    border: 1px solid #d1d9e0;
    border-inline-start-width: 4px;
    border-radius: 6px;
    background: #fff;
    overflow-wrap: anywhere;
  }
  .alert.error {
    border-color: #cf222e;
    background: #ffebe9;
    color: #82071e;
  }
  .alert.success {
    border-color: #1a7f37;
    background: #dafbe1;
    color: #0f4d22;
  }
  .alert.warning {
    border-color: #bf8700;
    background: #fff8c5;
    color: #4d2d00;
  }
  .alert strong {
    display: block;
  }
  .alert .buttons {
    margin-block-start: 0.5rem;
  }
  .state {
    display: grid;
    place-content: center;
    justify-items: center;
    gap: 0.75rem;
    min-height: 12rem;
    padding: 1rem;
    border: 1px dashed #d1d9e0;
    border-radius: 6px;
    background: #fff;
    color: #59636e;
    text-align: center;
  }
  .spinner {
    inline-size: 1.5rem;
    block-size: 1.5rem;
    border: 3px solid #d1d9e0;
    border-block-start-color: #0969da;
    border-radius: 50%;
    animation: spin 0.9s linear infinite;
  }
  @media (prefers-reduced-motion: reduce) {
    .spinner {
      animation-duration: 3s;
    }
  }
  @keyframes spin {
    to {
      transform: rotate(1turn);
    }
  }
  .sr-only {
    position: absolute;
    inline-size: 1px;
    block-size: 1px;
    margin: -1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
`;

/**
 * A page's facts above its numbers (`<dl class="facts">`: a results page's status and phase, a feed report's totals):
 * a card of terms, each value right under its term however many lines a neighbour's takes.
 */
export const factsStyles = css`
  .facts {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr));
    gap: 0.75rem 1.5rem;
    margin: 0 0 1rem;
    padding: 1rem 1.25rem;
    border: 1px solid #d1d9e0;
    border-radius: 10px;
    background: #fff;
  }
  .facts div {
    display: grid;
    align-content: start;
    gap: 0.125rem;
    min-inline-size: 0;
  }
  .facts dt {
    color: #59636e;
    font-size: 0.8125rem;
  }
  .facts dd {
    margin: 0;
    overflow-wrap: anywhere;
  }
`;
