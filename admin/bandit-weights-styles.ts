import { css } from 'lit';

/** `<svc-admin-bandit-weights>`'s own styles: the panel, the stacked chart with its axes and legend, the table. */
export const banditWeightsStyles = css`
  :host {
    margin-block-end: 1rem;
  }
  .panel {
    display: grid;
    gap: 0.875rem;
    padding: 1.25rem;
    border: 1px solid #d1d9e0;
    border-radius: 10px;
    background: #fff;
  }
  figure {
    margin: 0;
  }
  figcaption {
    margin-block-end: 0.5rem;
    color: #59636e;
    font-size: 0.8125rem;
  }
  .empty {
    display: grid;
    gap: 0.25rem;
    padding: 1rem;
    border: 1px dashed #d1d9e0;
    border-radius: 6px;
    background: #f6f8fa;
  }
  /* The outer SVG leaves the room of the share labels as padding, which its labels hang into. */
  .weights-svg {
    display: block;
    box-sizing: border-box;
    padding-inline: 2.75rem 0.25rem;
    overflow: visible;
    font-size: 0.75rem;
  }
  .tick {
    fill: #59636e;
    font-variant-numeric: tabular-nums;
  }
  .axis {
    stroke: #818b98;
  }
  .band {
    fill: var(--arm);
    stroke: #fff;
    stroke-width: 1;
    vector-effect: non-scaling-stroke;
  }
  .grid {
    stroke: #fff;
    stroke-opacity: 0.55;
    stroke-dasharray: 4 4;
    vector-effect: non-scaling-stroke;
  }
  .reweight {
    stroke: #1f2328;
    stroke-opacity: 0.35;
    vector-effect: non-scaling-stroke;
  }
  /* An arm's colour, distinct from its neighbours in the stack, each with a 3:1 contrast on white (WCAG's non-text
     contrast); the legend names it. */
  .a0 {
    --arm: #0969da;
  }
  .a1 {
    --arm: #bc4c00;
  }
  .a2 {
    --arm: #8250df;
  }
  .a3 {
    --arm: #1b7c83;
  }
  .a4 {
    --arm: #bf3989;
  }
  .a5 {
    --arm: #4d7c0f;
  }
  .a6 {
    --arm: #9a6700;
  }
  .a7 {
    --arm: #57606a;
  }
  .legend {
    display: flex;
    flex-wrap: wrap;
    gap: 0.25rem 1.25rem;
    margin: 0.5rem 0 0;
    padding: 0 0 0 2.75rem;
    list-style: none;
  }
  .legend li {
    display: inline-flex;
    align-items: center;
    gap: 0.375rem;
  }
  .arm-name {
    font-weight: 600;
    overflow-wrap: anywhere;
  }
  .swatch {
    background: var(--arm);
    inline-size: 0.875rem;
    block-size: 0.875rem;
    border-radius: 3px;
    flex: none;
  }
  table.reweights caption {
    padding: 0.5rem 0.75rem;
    color: #59636e;
    font-size: 0.8125rem;
    text-align: start;
  }
  table.reweights th,
  table.reweights td {
    white-space: nowrap;
  }
  .best {
    display: block;
    color: #59636e;
    font-size: 0.75rem;
  }
  .note {
    font-size: 0.875rem;
  }
  @media (max-width: 40rem) {
    .panel {
      padding: 0.75rem;
    }
    /* A card per reweight: the caption spans the cards, and an arm's name (its cell's label) may be long. */
    table.reweights caption {
      display: block;
    }
    table.reweights .cell-label {
      flex-basis: 8.5rem;
      overflow-wrap: anywhere;
    }
  }
`;
