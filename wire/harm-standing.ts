// Whether a guardrail's harm stops the experiment, in words: the one phrase the results' rows and banner and the
// console's Ship dialog write, so that no screen shows as a stop a harm the service will not stop for. Pure, and it
// imports nothing but the answer's shape.
import type { GuardrailHarm, ResultsAnalysis } from './results-answer.js';

/**
 * `stops`: the automatic stop acts on it (its p-value adjusted across the stop's family is below alpha); `signal`:
 * harmed by its test alone, not after that correction; `harmed`: harmed, in a section that does not say whether it
 * stops (a dimension's, or an older answer); `none`: not harmed.
 */
export type HarmStanding = 'stops' | 'signal' | 'harmed' | 'none';

export function harmStanding(harm: GuardrailHarm | undefined): HarmStanding {
  if (harm?.harmed !== true) return 'none';
  return harm.stops === true ? 'stops' : harm.stops === false ? 'signal' : 'harmed';
}

/**
 * A harm that stops the experiment, or one that does not once corrected for the stop's family of `analysis.harmTest`
 * (every guardrail × challenger), in words; '' for the other standings.
 * @example harmWords('signal', { harmTest: { …, family: 4 } }) // 'harm signal, not significant after correction for 4 tests'
 */
export function harmWords(standing: HarmStanding, analysis: Pick<ResultsAnalysis, 'harmTest'>): string {
  if (standing === 'stops') return 'stops the experiment';
  if (standing !== 'signal') return '';
  const family = analysis.harmTest?.family;
  return `harm signal, not significant after correction for ${family === undefined ? 'every guardrail × challenger' : `${family} ${family === 1 ? 'test' : 'tests'}`}`;
}
