import { css } from 'lit';

// The rules of the controls (phase, breakdown, CSV), the phases, the metrics' roles and harms, and the date graph.
// They read only custom properties results-styles.ts reads too (its own list is the element's documented one).
export const viewStyles = css`
  [part~='phase'] {
    flex-basis: 100%;
    font-size: 0.8125rem;
  }
  .phases {
    margin: 0 0 1rem;
    padding-inline-start: 1.25rem;
    font-size: 0.8125rem;
    color: var(--svc-results-muted, #59636e);
  }
  .phases [aria-current] {
    color: var(--svc-results-color, #1f2328);
  }
  .phases .reason {
    overflow-wrap: anywhere;
  }
  .controls {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.5rem 1.25rem;
    margin-block-end: 1rem;
  }
  .controls .switch {
    margin: 0;
  }
  .field {
    display: inline-flex;
    align-items: center;
    gap: 0.5rem;
  }
  .field label {
    font-size: 0.8125rem;
    color: var(--svc-results-muted, #59636e);
  }
  select,
  .button {
    min-block-size: calc(2rem + 2px);
    padding: 0.25rem 0.75rem;
    border: 1px solid var(--svc-results-border, #d1d9e0);
    border-radius: var(--svc-results-radius, 6px);
    background: var(--svc-results-background, #fff);
    color: inherit;
    font: inherit;
    font-size: 0.8125rem;
  }
  .button {
    cursor: pointer;
    font-weight: 600;
  }
  select:focus-visible,
  .button:focus-visible {
    outline: 2px solid var(--svc-results-focus, #0969da);
    outline-offset: 2px;
  }
  .role {
    margin-inline-start: 0.375rem;
    padding: 0 0.375rem;
    border: 1px solid var(--svc-results-border, #d1d9e0);
    border-radius: var(--svc-results-radius, 6px);
    font-size: 0.75rem;
    font-weight: 600;
    white-space: nowrap;
  }
  .harm {
    display: block;
    font-size: 0.75rem;
    font-weight: 600;
    color: var(--svc-results-negative, #cf222e);
  }
  /* A harm the stop's correction does not act on: in words, not in the colour of a harm. */
  .harm.signal {
    font-weight: 400;
    color: inherit;
  }
  .no-harm {
    display: block;
    font-size: 0.75rem;
    font-weight: 400;
  }
  .harms {
    margin: 0.25rem 0 0;
    padding-inline-start: 1.25rem;
  }
  [part~='cut'],
  .series-note {
    margin-block-start: 0.5rem;
    font-size: 0.8125rem;
  }
  /* The date graph: its outer SVG leaves the room of the value labels as padding, which its labels hang into. */
  .series {
    position: relative;
  }
  .series-svg {
    display: block;
    box-sizing: border-box;
    margin-block-start: 0.5rem;
    padding-inline: 3.25rem 0.25rem;
    overflow: visible;
    font-size: 0.75rem;
  }
  .series-svg text {
    fill: var(--svc-results-muted, #59636e);
  }
  .band {
    fill: currentColor;
    fill-opacity: 0.15;
    stroke: none;
  }
  .line {
    fill: none;
    stroke: currentColor;
    stroke-width: 2;
    stroke-linejoin: round;
    vector-effect: non-scaling-stroke;
  }
  .marker path,
  .swatch path {
    fill: currentColor;
    stroke: var(--svc-results-background, #fff);
    stroke-width: 1;
  }
  .legend {
    display: flex;
    flex-wrap: wrap;
    gap: 0.25rem 1rem;
    margin: 0.25rem 0 0;
    padding: 0;
    list-style: none;
    font-size: 0.8125rem;
  }
  .legend li {
    display: inline-flex;
    align-items: center;
    gap: 0.375rem;
  }
  .swatch {
    overflow: visible;
  }
  .swatch line {
    stroke: currentColor;
    stroke-width: 2;
  }
  .band-swatch {
    display: inline-block;
    inline-size: 1.75rem;
    block-size: 0.75rem;
    background: var(--svc-results-muted, #59636e);
    opacity: 0.25;
  }
`;
