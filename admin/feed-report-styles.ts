import { css } from 'lit';

/** `<svc-admin-feed-report>`'s own styles: the range form, the facts, the daily chart, the sections. */
export const feedReportStyles = css`
  a.button {
    box-sizing: border-box;
    display: inline-flex;
    align-items: center;
    min-height: 2.25rem;
    padding: 0.375rem 0.875rem;
    border: 1px solid #d1d9e0;
    border-radius: 6px;
    background: #f6f8fa;
    color: #0550ae;
    font-weight: 500;
    line-height: 1.4;
    text-decoration: none;
    white-space: nowrap;
  }
  a.button:hover {
    background: #eef1f4;
    border-color: #c2cbd4;
    text-decoration: underline;
  }
  form.range {
    display: flex;
    flex-wrap: wrap;
    align-items: end;
    gap: 0.5rem 0.75rem;
    margin: 0 0 1rem;
  }
  form.range .field {
    inline-size: 10.5rem;
  }
  form.range .hint,
  form.range .field-error {
    flex-basis: 100%;
  }
  form.range .field-error:empty {
    display: none;
  }
  .facts {
    margin-block-end: 1.5rem;
  }
  .facts dd {
    font-variant-numeric: tabular-nums;
  }
  section {
    margin-block-end: 1.5rem;
  }
  .section-head {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    justify-content: space-between;
    gap: 0.5rem 1rem;
    margin-block-end: 0.5rem;
  }
  section > .hint {
    margin-block-end: 0.5rem;
  }
  .measure {
    display: flex;
    align-items: center;
    gap: 0.5rem;
  }
  .measure select {
    inline-size: auto;
  }
  .chart {
    display: grid;
    grid-template-columns: auto minmax(0, 1fr);
    gap: 0.25rem 0.5rem;
    margin: 0 0 0.75rem;
    padding: 1rem 1rem 0.5rem;
    border: 1px solid #d1d9e0;
    border-radius: 10px;
    background: #fff;
  }
  .y-axis {
    display: flex;
    flex-direction: column;
    justify-content: space-between;
    color: #59636e;
    font-size: 0.75rem;
    font-variant-numeric: tabular-nums;
    text-align: end;
  }
  .chart svg {
    display: block;
    inline-size: 100%;
    block-size: 10rem;
  }
  .chart rect {
    fill: #0969da;
  }
  .chart rect:hover {
    fill: #0550ae;
  }
  .chart .baseline {
    stroke: #818b98;
    stroke-width: 1;
    vector-effect: non-scaling-stroke;
  }
  .x-axis {
    display: flex;
    justify-content: space-between;
    grid-column: 2;
    color: #59636e;
    font-size: 0.75rem;
  }
  details summary {
    cursor: pointer;
    color: #0550ae;
    font-weight: 500;
    margin-block-end: 0.5rem;
  }
  .state.empty {
    min-height: 8rem;
  }
`;
