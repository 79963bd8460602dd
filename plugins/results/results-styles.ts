import { css } from 'lit';
import { viewStyles } from './results-view-styles.js';

// An admin page restyles the results through custom properties and the parts the element's JSDoc lists; the defaults
// read on a white page. Colours of the verdicts keep a 4.5:1 contrast on white, as they colour text too. Every custom
// property is read here (the controls, phases and date graph's rules are in results-view-styles.ts).
const baseStyles = css`
  :host {
    display: block;
    color: var(--svc-results-color, #1f2328);
    font: var(--svc-results-font, 0.9375rem/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif);
    font-variant-numeric: tabular-nums;
  }
  :host([hidden]) {
    display: none;
  }
  h2,
  h3,
  p {
    margin: 0;
  }
  [part~='header'] {
    display: flex;
    flex-wrap: wrap;
    align-items: baseline;
    gap: 0.25rem 1rem;
    margin-block-end: 0.75rem;
  }
  h2 {
    font-size: 1.25rem;
    font-weight: 600;
    line-height: 1.3;
    overflow-wrap: anywhere;
  }
  h3 {
    font-size: 1.0625rem;
    font-weight: 600;
    margin-block: 1.25rem 0.5rem;
  }
  [part~='summary'],
  .note,
  .muted {
    color: var(--svc-results-muted, #59636e);
  }
  [part~='analysis'] {
    flex-basis: 100%;
    font-size: 0.8125rem;
  }
  /* The relative/absolute switch: two radio buttons drawn as one segmented control. The radios stay in the
     accessibility tree and take the focus (arrow keys move between them); their labels show the state. */
  .switch {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.25rem 0.75rem;
    margin: 0 0 1rem;
    padding: 0;
    border: 0;
  }
  .switch legend {
    /* Floated, a legend lays out beside the options; its line is their height, so their texts share a baseline. */
    float: left;
    padding: 0;
    line-height: calc(2rem + 2px);
    font-size: 0.8125rem;
    color: var(--svc-results-muted, #59636e);
  }
  .switch .options {
    display: inline-flex;
    border: 1px solid var(--svc-results-border, #d1d9e0);
    border-radius: var(--svc-results-radius, 6px);
  }
  .switch label {
    position: relative;
  }
  .switch input {
    position: absolute;
    inset: 0;
    margin: 0;
    opacity: 0;
    cursor: pointer;
  }
  .switch span {
    display: block;
    min-block-size: 1.5rem;
    padding: 0.25rem 0.75rem;
    font-size: 0.8125rem;
    line-height: 1.5rem;
  }
  .switch label + label span {
    border-inline-start: 1px solid var(--svc-results-border, #d1d9e0);
  }
  .switch input:checked + span {
    background: var(--svc-results-selected-background, #0969da);
    color: var(--svc-results-selected-color, #fff);
    font-weight: 600;
  }
  .switch label:first-child input:checked + span {
    border-start-start-radius: calc(var(--svc-results-radius, 6px) - 1px);
    border-end-start-radius: calc(var(--svc-results-radius, 6px) - 1px);
  }
  .switch label:last-child input:checked + span {
    border-start-end-radius: calc(var(--svc-results-radius, 6px) - 1px);
    border-end-end-radius: calc(var(--svc-results-radius, 6px) - 1px);
  }
  .switch input:focus-visible + span {
    outline: 2px solid var(--svc-results-focus, #0969da);
    outline-offset: 2px;
  }
  [part~='banner'] {
    margin-block: 0 1rem;
    padding: 0.75rem 1rem;
    border: 1px solid var(--svc-results-warning-border, #d4a72c);
    border-inline-start-width: 4px;
    border-radius: var(--svc-results-radius, 6px);
    background: var(--svc-results-warning-background, #fff8c5);
    color: var(--svc-results-warning-color, #3b2300);
  }
  [part~='banner'] > strong {
    display: block;
  }
  [part~='metric'] {
    margin-block-end: 1.5rem;
  }
  [part~='table-scroll'] {
    /* A containing block for the visually hidden texts, which would otherwise widen the page, and a container
       that keeps the caption within the visible width while the table scrolls beneath it. */
    position: relative;
    container-type: inline-size;
    overflow-x: auto;
    border: 1px solid var(--svc-results-border, #d1d9e0);
    border-radius: var(--svc-results-radius, 6px);
    /* The cue that more of the table lies sideways: a shade at an edge with more beyond it. The covers scroll with
       the content (local) and hide the shades (scroll) once an edge is reached. */
    background:
      linear-gradient(to right, var(--svc-results-background, #fff) 30%, transparent) left / 2.5rem 100% no-repeat local,
      linear-gradient(to left, var(--svc-results-background, #fff) 30%, transparent) right / 2.5rem 100% no-repeat local,
      radial-gradient(farthest-side at 0 50%, rgb(31 35 40 / 0.3), transparent) left / 0.875rem 100% no-repeat scroll,
      radial-gradient(farthest-side at 100% 50%, rgb(31 35 40 / 0.3), transparent) right / 0.875rem 100% no-repeat scroll;
  }
  /* Said in words too on a narrow screen, where the table is wider than the page. */
  .scroll-cue {
    display: none;
    margin: 0 0 0.25rem;
    font-size: 0.8125rem;
    color: var(--svc-results-muted, #59636e);
  }
  @media (max-width: 48rem) {
    .scroll-cue {
      display: block;
    }
  }
  [part~='table-scroll']:focus-visible {
    outline: 2px solid var(--svc-results-focus, #0969da);
    outline-offset: 2px;
  }
  table {
    width: 100%;
    border-collapse: collapse;
    white-space: nowrap;
  }
  caption {
    position: sticky;
    left: 0;
    box-sizing: border-box;
    max-inline-size: 100cqi;
    padding: 0.5rem 0.75rem;
    text-align: start;
    font-weight: 600;
    white-space: normal;
  }
  caption .muted {
    font-weight: 400;
  }
  th,
  td {
    padding: 0.4rem 0.75rem;
    border-block-start: 1px solid var(--svc-results-border, #d1d9e0);
    text-align: end;
    vertical-align: top;
  }
  th:first-child {
    text-align: start;
  }
  thead th {
    background: var(--svc-results-header-background, #f6f8fa);
    font-weight: 600;
    /* Numbers keep to one line; a header may wrap, so that nine columns fit a laptop's width without scrolling. */
    white-space: normal;
    vertical-align: bottom;
  }
  tbody th {
    font-weight: 600;
  }
  /* The variation's name stays in view while a narrow screen scrolls the numbers. */
  th:first-child {
    position: sticky;
    left: 0;
    background: var(--svc-results-background, #fff);
  }
  thead th:first-child {
    background: var(--svc-results-header-background, #f6f8fa);
  }
  .sub {
    display: block;
    font-size: 0.8125rem;
    font-weight: 400;
  }
  .nowrap {
    white-space: nowrap;
  }
  [part~='cuped'] {
    margin-block-start: 0.5rem;
    font-size: 0.8125rem;
  }
  .tag {
    margin-inline-start: 0.375rem;
    font-size: 0.75rem;
    font-weight: 400;
  }
  .positive {
    color: var(--svc-results-positive, #1a7f37);
  }
  .negative {
    color: var(--svc-results-negative, #cf222e);
  }
  .sr-only {
    position: absolute;
    width: 1px;
    height: 1px;
    margin: -1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
  figure {
    margin: 0.75rem 0 0;
  }
  figcaption {
    font-size: 0.8125rem;
    color: var(--svc-results-muted, #59636e);
  }
  .chart-svg {
    display: block;
    overflow: visible;
    font-size: 0.75rem;
  }
  .chart-svg text {
    fill: currentColor;
  }
  /* A label crossing the zero line or a grid line stays legible: a halo of the background around its letters. */
  .chart-svg .label {
    paint-order: stroke;
    stroke: var(--svc-results-background, #fff);
    stroke-width: 4px;
    stroke-linejoin: round;
  }
  .chart-svg .tick {
    fill: var(--svc-results-muted, #59636e);
  }
  .grid {
    stroke: var(--svc-results-grid, #eaeef2);
  }
  .axis {
    stroke: var(--svc-results-border, #d1d9e0);
  }
  .zero {
    stroke: var(--svc-results-zero, #1f2328);
    stroke-width: 1.5;
  }
  .row.positive {
    fill: var(--svc-results-positive, #1a7f37);
  }
  .row.negative {
    fill: var(--svc-results-negative, #cf222e);
  }
  .row.neutral {
    fill: var(--svc-results-neutral, #6e7781);
  }
  .row.positive .bar {
    stroke: var(--svc-results-positive, #1a7f37);
  }
  .row.negative .bar {
    stroke: var(--svc-results-negative, #cf222e);
  }
  .row.neutral .bar {
    stroke: var(--svc-results-neutral, #6e7781);
  }
  .bar {
    fill-opacity: 0.3;
    stroke-width: 1;
  }
  [part~='state'] {
    display: grid;
    place-content: center;
    justify-items: center;
    gap: 0.75rem;
    min-height: var(--svc-results-min-height, 16rem);
    padding: 1rem;
    border: 1px dashed var(--svc-results-border, #d1d9e0);
    border-radius: var(--svc-results-radius, 6px);
    text-align: center;
  }
  :host([status='error']) [part~='state'] {
    border-style: solid;
    border-color: var(--svc-results-negative, #cf222e);
  }
  .spinner {
    width: 1.75rem;
    height: 1.75rem;
    border: 3px solid var(--svc-results-border, #d1d9e0);
    border-block-start-color: var(--svc-results-accent, #0969da);
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
  /* The date graph's challengers: a colour each, and a marker shape each (so no colour has to tell them apart). */
  .s0 {
    color: var(--svc-results-series-1, #0969da);
  }
  .s1 {
    color: var(--svc-results-series-2, #bc4c00);
  }
  .s2 {
    color: var(--svc-results-series-3, #8250df);
  }
  .s3 {
    color: var(--svc-results-series-4, #1b7c83);
  }
`;

export const resultsStyles = [baseStyles, viewStyles];
