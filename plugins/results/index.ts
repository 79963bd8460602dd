// The `results` plugin: `<svc-results>`, an experiment's results for admin pages. It needs no SDK instance (it reads
// with a server key), so it is an element to define rather than a plugin to `use()`.
import { defineElement } from '../../src/index.js';
import { SvcResults } from './results-element.js';

export { SvcResults };
export type { ResultsDifference, ResultsState, ResultsView } from './results-element.js';
export type {
  AbsoluteDifference, CupedFigures, DimensionResult, GuardrailHarm, MetricCap, MetricResult, MetricRole, MetricType,
  PValueCorrection, ResultsAnalysis, ResultsAnswer, ResultsError, ResultsPhase, SeriesPoint, VariationStats, VariationUnits,
} from './results-answer.js';

/**
 * Defines `<svc-results>` (once per page, however many copies of the SDK define it).
 * @example defineResults(); document.querySelector('svc-results').apiKey = key;
 */
export function defineResults(): void {
  defineElement('svc-results', SvcResults);
}
