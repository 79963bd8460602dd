// What stands above the metrics: the experiment's name, its units, the phase shown and how to read the numbers; the
// sample ratio mismatch banner.
import { html, nothing, type TemplateResult } from 'lit';
import type { ResultsAnswer } from './results-answer.js';
import type { ResultsFormat } from './results-format.js';
import { phaseLine } from './results-phases.js';
import type { Reading } from './results-reading.js';

/** The header: name, units per variation, the phase shown (`Phase 2 of 2, since 26 Nov 2026 · weights …`), notes. */
export function resultsHeader(r: ResultsAnswer, f: ResultsFormat, reading: Reading): TemplateResult {
  const split = r.variations.map((v) => `${v.name} ${f.units(v.units)}`).join(', ');
  const phase = phaseLine(r, f);
  const left = r.multipleExposures;
  // A div, not a <header>: a header outside any section is the page's banner landmark, and a page keeps one.
  return html`<div part="header">
    <h2 part="title">${r.experience}</h2>
    <p part="summary">${f.units(r.units)} ${r.units === 1 ? 'unit' : 'units'} exposed${split ? `: ${split}` : ''}</p>
    ${phase ? html`<p part="phase" class="note phase">${phase}</p>` : nothing}
    ${left > 0
      ? html`<p class="note">${f.units(left)} ${left === 1 ? 'unit was' : 'units were'} exposed to more than one variation and
          ${left === 1 ? 'is' : 'are'} left out of these results.</p>`
      : nothing}
    <p part="analysis" class="note analysis">${reading.note}</p>
  </div>`;
}

/** The warning that the units' split does not match the phase's weights: the numbers may be biased. */
export function srmBanner(r: ResultsAnswer, f: ResultsFormat): TemplateResult | typeof nothing {
  if (!r.srm?.mismatch) return nothing;
  const split = r.variations.map((v) => `${v.name} ${f.units(v.units)}`).join(', ');
  const weights = r.variations.map((v) => f.weight(v.weight)).join(' / ');
  const p = typeof r.srm.pValue === 'number' ? ` (${f.p(r.srm.pValue)})` : '';
  return html`<div part="banner" role="alert">
    <strong>Sample ratio mismatch: these results may be biased.</strong>
    The units' split (${split}) does not match the configured weights (${weights})${p}. Check how exposures are
    recorded before acting on these numbers.
  </div>`;
}
