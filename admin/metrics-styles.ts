import { css } from 'lit';

/** The metrics page's own styles: its table's cells, the form's flags and read-only name. */
export const metricsStyles = css`
  td {
    white-space: nowrap;
  }
  td.what {
    min-inline-size: 12rem;
    white-space: normal;
    overflow-wrap: anywhere;
  }
  legend { margin-block-end: 0.5rem; }
  .flags {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.5rem 1.25rem;
    min-height: 2.25rem;
  }
  input[readonly] { background: #f6f8fa; }
  .alert.action-error { margin-block-end: 1rem; }
`;
