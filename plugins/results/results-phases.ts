// An experiment's phases: from a start (or restart) or a change of its weights, traffic or targeting to the next. The
// answer covers one phase (its units are those first exposed in it, its split is tested against its weights): the
// header says which, the list shows them all, and a select picks another.
import { html, nothing, type TemplateResult } from 'lit';
import type { ResultsAnswer, ResultsPhase, VariationUnits } from './results-answer.js';
import type { ResultsFormat } from './results-format.js';

/** The answer's phases that can be shown (an answer from before phases has none), oldest first. */
export function phasesOf(r: Pick<ResultsAnswer, 'phases'> | undefined): ResultsPhase[] {
  const phases = r?.phases;
  if (!Array.isArray(phases)) return [];
  return phases.filter((p) => typeof p === 'object' && p !== null && Number.isInteger(p.phase));
}

/** The phase shown: the answer's, else the last one. */
export function shownPhase(r: Pick<ResultsAnswer, 'phase' | 'phases'>): ResultsPhase | undefined {
  const phases = phasesOf(r);
  return phases.find((p) => p.phase === r.phase) ?? phases[phases.length - 1];
}

/**
 * When a phase ran, to the minute in the reader's time zone (two phases may begin on one day): `since 26 Nov 2026,
 * 10:15`, `2 Nov 2026, 09:00 – 26 Nov 2026, 10:15`, or `no exposure yet`.
 */
function span(p: ResultsPhase, f: ResultsFormat): string {
  if (typeof p.startedAt !== 'string') return 'no exposure yet';
  const start = f.dateTime(p.startedAt);
  return typeof p.endedAt === 'string' ? `${start} – ${f.dateTime(p.endedAt)}` : `since ${start}`;
}

/** A phase's weights, the answer's variations first in their order: `control 20% / bold 80%`. */
export function weightsText(p: ResultsPhase, variations: readonly VariationUnits[], f: ResultsFormat): string {
  const weights = typeof p.weights === 'object' && p.weights !== null ? p.weights : {};
  const names = [...new Set([...variations.map((v) => v.name), ...Object.keys(weights)])].filter((n) => typeof weights[n] === 'number');
  return names.map((n) => `${n} ${f.share(weights[n] as number)}`).join(' / ');
}

/** The header's line: `Phase 2 of 2, since 26 Nov 2026 · weights control 20% / bold 80%`; empty without phases. */
export function phaseLine(r: ResultsAnswer, f: ResultsFormat): string {
  const phases = phasesOf(r);
  if (r.allPhases && phases.length) {
    // From the first phase's start to the last one's end (or on).
    const whole: ResultsPhase = { ...phases[0]!, ...(phases.at(-1)!.endedAt ? { endedAt: phases.at(-1)!.endedAt! } : {}) };
    if (!phases.at(-1)!.endedAt) delete whole.endedAt;
    return `All ${phases.length} phases, ${span(whole, f)} · each phase's effect estimated on its own units, combined by inverse-variance weights`;
  }
  const p = shownPhase(r);
  if (!p) return '';
  const weights = weightsText(p, r.variations, f);
  return `Phase ${p.phase} of ${phasesOf(r).length}, ${span(p, f)}${weights ? ` · weights ${weights}` : ''}`;
}

/**
 * Every phase with its dates, weights and why it began, the one shown marked in words (and `aria-current`); only for
 * an experiment with more than one.
 */
export function phaseList(r: ResultsAnswer, f: ResultsFormat): TemplateResult | typeof nothing {
  const phases = phasesOf(r);
  if (phases.length < 2) return nothing;
  const shown = r.allPhases ? undefined : shownPhase(r)?.phase;
  return html`<ol part="phases" class="phases" aria-label="Phases">${phases.map((p) => {
    const weights = weightsText(p, r.variations, f);
    return html`<li aria-current=${p.phase === shown ? 'true' : nothing}>
      <strong>Phase ${p.phase}</strong>${p.phase === shown ? html` <span class="tag">(shown)</span>` : nothing}:
      ${span(p, f)}${weights ? ` · ${weights}` : ''}${p.reason ? html` · <span class="reason">${p.reason}</span>` : nothing}
    </li>`;
  })}</ol>`;
}

/**
 * The select of the phase to show (`wanted`: the phase asked for, else the current one), for an experiment with more
 * than one; `pick` receives the number chosen.
 */
export function phaseSelect(
  phases: readonly ResultsPhase[], wanted: number | 'all', pick: (phase: number | 'all') => void,
): TemplateResult | typeof nothing {
  if (phases.length < 2) return nothing;
  const last = phases[phases.length - 1];
  const picked = (value: string): number | 'all' => (value === 'all' ? 'all' : Number(value));
  return html`<span part="phase-select" class="field">
    <label for="phase">Phase</label>
    <select id="phase" @change=${(e: Event) => pick(picked((e.target as HTMLSelectElement).value))}>
      <option value="all" .selected=${wanted === 'all'}>All phases</option>
      ${phases.map((p) => html`<option value=${String(p.phase)} .selected=${p.phase === wanted}>Phase ${p.phase}${
        p === last && typeof p.endedAt !== 'string' ? ' (current)' : ''}</option>`)}
    </select>
  </span>`;
}
