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
  /* The plot leaves room on its left for the share labels, and below for the times. */
  .chart {
    padding-inline-start: 2.75rem;
  }
  .plot {
    position: relative;
    block-size: 12rem;
    border-block-end: 1px solid #818b98;
  }
  .plot svg {
    display: block;
  }
  .band {
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
  .y-axis span,
  .x-axis span {
    position: absolute;
    color: #59636e;
    font-size: 0.75rem;
    font-variant-numeric: tabular-nums;
    white-space: nowrap;
  }
  .y-axis span {
    inset-inline-end: calc(100% + 0.375rem);
    transform: translateY(-50%);
  }
  .x-axis {
    position: relative;
    block-size: 1.5rem;
  }
  .x-axis span {
    top: 0.25rem;
    transform: translateX(-50%);
  }
  .x-axis span.first {
    transform: none;
  }
  .x-axis span.last {
    transform: translateX(-100%);
  }
  .legend {
    display: flex;
    flex-wrap: wrap;
    gap: 0.25rem 1.25rem;
    margin: 0.5rem 0 0;
    padding: 0;
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
  }
`;
