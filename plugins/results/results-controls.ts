// The row of controls above the metrics: the phase, the dimension to break down by, relative or absolute differences,
// and the CSV download. One template whatever it shows, rendered at the same place while a new answer loads, so the
// select just changed keeps the focus (a keyboard user moving through its options with the arrows stays on it).
import { html, nothing, type TemplateResult } from 'lit';
import type { ResultsPhase } from './results-answer.js';
import { breakdownOptions } from './results-dimensions.js';
import type { ResultsDifference } from './results-effect.js';
import { phaseSelect } from './results-phases.js';

export interface ControlsState {
  /** The experiment's phases (a select only with more than one). */
  phases: readonly ResultsPhase[];
  /** The phase asked for, else the current one. */
  phase: number | 'all';
  /** The dimension asked for; undefined: no "Break down by" (no units to break down). */
  dimension: string | undefined;
  /** The difference shown; undefined: no switch (no tables to switch). */
  difference: ResultsDifference | undefined;
  /** Offer the CSV download (an answer with results is shown). */
  csv: boolean;
}

export interface ControlsActions {
  phase(phase: number | 'all'): void;
  dimension(dimension: string): void;
  difference(difference: ResultsDifference): void;
  csv(): void;
}

/** The controls, or nothing when none applies. */
export function resultsControls(s: ControlsState, act: ControlsActions): TemplateResult | typeof nothing {
  const phase = phaseSelect(s.phases, s.phase, act.phase);
  if (phase === nothing && s.dimension === undefined && s.difference === undefined && !s.csv) return nothing;
  return html`<div part="controls" class="controls">
    ${phase}
    ${s.dimension === undefined ? nothing : breakdown(s.dimension, act.dimension)}
    ${s.difference === undefined ? nothing : differenceSwitch(s.difference, act.difference)}
    ${s.csv ? html`<button part="csv" type="button" class="button" @click=${() => act.csv()}>Download CSV</button>` : nothing}
  </div>`;
}

/** "Break down by": none or a dimension; a dimension set from outside that it does not list stays as an option. */
function breakdown(current: string, pick: (dimension: string) => void): TemplateResult {
  return html`<span part="breakdown" class="field">
    <label for="breakdown">Break down by</label>
    <select id="breakdown" @change=${(e: Event) => pick((e.target as HTMLSelectElement).value)}>
      ${breakdownOptions(current).map((o) => html`<option value=${o.value} .selected=${o.value === current}>${o.label}</option>`)}
    </select>
  </span>`;
}

/** Relative or absolute: two radio buttons (the arrow keys move between them, a screen reader says which is on). */
function differenceSwitch(difference: ResultsDifference, pick: (difference: ResultsDifference) => void): TemplateResult {
  const option = (value: ResultsDifference, label: string) => html`<label>
    <input type="radio" name="difference" .value=${value} .checked=${difference === value}
      @change=${() => pick(value)}><span>${label}</span></label>`;
  return html`<fieldset part="difference" class="switch">
    <legend>Differences</legend>
    <div class="options">${option('relative', 'Relative (%)')}${option('absolute', 'Absolute')}</div>
  </fieldset>`;
}
