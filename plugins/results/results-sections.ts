// The results' sections: the overall one (with the date graphs, when the answer has a series), then one per value of
// the dimension broken down by, headed with its name in words ("Device: mobile").
import { html, nothing, type TemplateResult } from 'lit';
import type { ResultsAnswer } from './results-answer.js';
import { dimensionLabel } from './results-dimensions.js';
import { metricView, type MetricContext } from './results-table.js';

export function resultsSections(r: ResultsAnswer, ctx: MetricContext): TemplateResult {
  const dimensions = r.dimensions ?? [];
  return html`
    <section part="section" aria-labelledby=${dimensions.length ? 'section-all' : nothing}>
      ${dimensions.length ? html`<h3 id="section-all">All units</h3>` : nothing}
      ${r.metrics.map((m, i) => metricView(m, ctx, `all-${i}`, '', r.series))}
    </section>
    ${dimensions.map((d, di) => {
      const scope = `${dimensionLabel(d.name)}: ${d.value}`;
      return html`<section part="section" aria-labelledby=${`section-${di}`}>
        <h3 id=${`section-${di}`}>${scope} <span class="muted">(${ctx.f.units(d.units)} units)</span></h3>
        ${d.metrics.map((m, i) => metricView(m, ctx, `d${di}-${i}`, scope))}
      </section>`;
    })}
  `;
}
