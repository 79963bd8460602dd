import { css } from 'lit';

// The editor's layout on top of adminStyles: two panels of fields, and a variations table that becomes one card per
// variation on a phone (a row of a name, a weight and a JSON textarea does not fit 390 px; scrolling it sideways
// would hide the textarea being typed in).
export const editorStyles = css`
  form {
    display: grid;
    gap: 1.25rem;
  }
  .panel {
    display: grid;
    gap: 1rem;
    padding: 1.25rem;
    border: 1px solid #d1d9e0;
    border-radius: 10px;
    background: #fff;
  }
  .grid {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr));
    gap: 1rem;
  }
  .field.name {
    max-inline-size: 28rem;
  }
  .kinds {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem 1.5rem;
  }
  .kinds legend,
  .arms legend,
  .variations legend,
  .devices legend,
  .sequential legend,
  .corrections legend {
    margin-block-end: 0.5rem;
  }
  /* One correction a line: a name and its hint wrap together beside the radio on a phone. */
  .corrections {
    display: grid;
    gap: 0.375rem;
  }
  .corrections .choice {
    display: flex;
    align-items: baseline;
  }
  /* Fixed weights or a bandit: one choice a line, its hint wrapping beside the radio on a phone. */
  .allocations {
    display: grid;
    gap: 0.375rem;
  }
  .allocations .choice {
    display: flex;
    align-items: baseline;
  }
  .arms {
    margin-block-end: 0.75rem;
  }
  /* A decision metric's name is long (recommendations-revenue): a row of its own, the four numbers in the next. */
  .field.decision {
    grid-column: 1 / -1;
    max-inline-size: 28rem;
  }
  .arms .buttons {
    gap: 0.375rem 1.25rem;
    flex-wrap: wrap;
  }
  /* A bandit's weights: shown, set by the service. */
  input[readonly] {
    background: #f6f8fa;
  }
  /* The sequential tuning while sequential is off: kept, but not editable. */
  input:disabled {
    border-color: #d1d9e0;
    background: #f6f8fa;
    color: #59636e;
    cursor: not-allowed;
  }
  .devices .buttons,
  .sequential .buttons {
    gap: 1.25rem;
    min-height: 2.25rem;
    align-items: center;
  }
  /* A metric's part keeps the width of its longest option: at 100% of a table cell, a long metric name beside it
     squeezed it to "Not us" or "N". The name wraps instead. */
  select.part {
    inline-size: auto;
  }
  th.metric-name {
    min-inline-size: 5.5rem;
    overflow-wrap: anywhere;
  }
  @media (max-width: 40rem) {
    th.metric-name,
    th.metric-name ~ td {
      padding-inline: 0.5rem;
    }
  }
  .variations .table-scroll {
    overflow: visible;
  }
  .variations td {
    vertical-align: top;
  }
  .v-name {
    inline-size: 22%;
  }
  .v-weight {
    inline-size: 7rem;
  }
  .v-remove {
    inline-size: 1%;
  }
  .weights-row {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    justify-content: space-between;
    gap: 0.5rem 1rem;
    margin-block-start: 0.75rem;
  }
  .weights {
    font-weight: 600;
  }
  .weights.ok {
    color: #116329;
  }
  .weights.bad {
    color: #b3141f;
  }
  .meta {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.5rem;
  }
  .form-actions {
    display: grid;
    gap: 0.75rem;
  }
  @media (max-width: 40rem) {
    .panel {
      padding: 1rem;
    }
    .variations table,
    .variations tbody,
    .variations tr,
    .variations td {
      display: block;
      inline-size: auto;
    }
    .variations thead {
      display: none;
    }
    .variations tr {
      display: grid;
      grid-template-columns: 1fr 6rem;
      gap: 0.5rem 0.75rem;
      padding: 0.75rem;
    }
    .variations tr + tr {
      border-block-start: 1px solid #d1d9e0;
    }
    .variations td {
      padding: 0;
      border: 0;
    }
    .v-body,
    .v-remove {
      grid-column: 1 / -1;
    }
    /* A variation's labels are .sr-only where the table's head names the columns; a card shows them. This rule
       overrides .sr-only as it comes after adminStyles. */
    .v-label {
      position: static;
      inline-size: auto;
      block-size: auto;
      margin: 0 0 0.25rem;
      overflow: visible;
      clip-path: none;
      white-space: normal;
      display: block;
      font-size: 0.8125rem;
    }
  }
`;
