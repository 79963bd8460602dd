// The experience editor's panel of an experiment's analysis settings: how its results are computed (significance
// level, sequential intervals and their tuning, multiple-comparison correction).
import { html, type TemplateResult } from 'lit';
import type { PValueCorrection } from '../wire/results-answer.js';
import { ANALYSIS_DEFAULTS } from './experience.js';
import type { ExperienceDraft } from './experience-form.js';

const CORRECTIONS: { correction: PValueCorrection; label: string; hint: string }[] = [
  { correction: 'none', label: 'None', hint: 'each metric judged on its own' },
  { correction: 'holm-bonferroni', label: 'Holm–Bonferroni', hint: 'bounds the chance of any false positive' },
  { correction: 'benjamini-hochberg', label: 'Benjamini–Hochberg', hint: 'bounds the share of false positives' },
];

/**
 * The panel of an experiment's analysis settings: the service's defaults shown filled in (and not written, see
 * `draftItem`); `set` applies a change to the draft.
 */
export function analysisFields(d: ExperienceDraft, set: (change: Partial<ExperienceDraft>) => void): TemplateResult {
  const alpha = Number(d.alpha);
  const alphaHint = d.alpha.trim() && alpha > 0 && alpha < 0.5
    ? `${levelOf(alpha)} confidence intervals; a difference is significant when its p-value is below ${alpha}. Between 0 and 0.5; default ${ANALYSIS_DEFAULTS.alpha}.`
    : `Between 0 and 0.5; default ${ANALYSIS_DEFAULTS.alpha} (95% intervals).`;
  return html`<section class="panel" aria-labelledby="analysis-title">
    <h2 id="analysis-title">How results are read</h2>
    <div class="grid">
      <div class="field">
        <label for="alpha">Significance level (alpha)</label>
        <input id="alpha" type="number" min="0" max="0.5" step="any" inputmode="decimal" aria-describedby="alpha-hint"
          .value=${d.alpha} @input=${(e: Event) => set({ alpha: (e.target as HTMLInputElement).value })}>
        <p id="alpha-hint" class="hint">${alphaHint}</p>
      </div>
      <fieldset class="field sequential" aria-describedby="sequential-hint">
        <legend>Intervals</legend>
        <div class="buttons">
          <label class="choice"><input type="checkbox" id="sequential" .checked=${d.sequential}
            @change=${(e: Event) => set({ sequential: (e.target as HTMLInputElement).checked })}> Sequential</label>
        </div>
        <p id="sequential-hint" class="hint">${d.sequential
          ? 'Valid whenever they are read: check the results daily and stop as soon as they are clear.'
          : 'Fixed-horizon: read the results once, at the planned end; checking early inflates false positives.'}</p>
      </fieldset>
      <div class="field">
        <label for="sequential-tuning">Sequential tuning (units)</label>
        <input id="sequential-tuning" type="number" min="1" step="any" inputmode="numeric" aria-describedby="sequential-tuning-hint"
          ?disabled=${!d.sequential} .value=${d.sequentialTuning}
          @input=${(e: Event) => set({ sequentialTuning: (e.target as HTMLInputElement).value })}>
        <p id="sequential-tuning-hint" class="hint">The number of units the sequential intervals are narrowest around;
          default ${ANALYSIS_DEFAULTS.sequentialTuning}.${d.sequential ? '' : ' Used with sequential intervals only.'}</p>
      </div>
    </div>
    <fieldset class="corrections">
      <legend>Multiple-comparison correction <span class="muted">(across the goals, or every metric without goals, × variations)</span></legend>
      ${CORRECTIONS.map(({ correction, label, hint }) => html`<label class="choice">
        <input type="radio" name="correction" .value=${correction} .checked=${d.correction === correction}
          @change=${() => set({ correction })}>
        <span>${label} <span class="muted">(${hint})</span></span></label>`)}
    </fieldset>
  </section>`;
}

/** The confidence level of a significance level, 1 − alpha, as people write it: 95%, 97.5%. */
function levelOf(alpha: number): string {
  return `${Math.round((1 - alpha) * 1e4) / 100}%`;
}
