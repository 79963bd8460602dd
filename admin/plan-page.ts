import { css, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { AdminApi } from './admin-api.js';
import { navigate } from './admin-events.js';
import { adminStyles, factsStyles } from './admin-styles.js';
import { ApiView } from './api-view.js';
import type { Metric } from './metric.js';
import type { PlanAnswer, PlanGap } from '../wire/plan-answer.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-plan': SvcAdminPlan;
  }
}

/** The change planned for when the address names none: 5 %. */
export const DEFAULT_MDE = 0.05;

/** What the page says instead of figures, by why there are none. */
const GAPS: Record<PlanGap, (metric: string) => string> = {
  'no-traffic': () => 'No traffic yet: nobody was active in this project in the last 14 days, so there is no baseline to plan from. '
    + 'Plans work once the SDK has sent a few days of events.',
  'zero-mean': (metric) => `${metric} did not happen in the last 14 days: a relative change of nothing is nothing. Choose another metric.`,
  'no-variance': (metric) => `Everyone had the same value of ${metric} in the last 14 days: there is no spread to plan with.`,
};

/**
 * `<svc-admin-plan experience="hero" metric="purchase" mde="0.05" days="28">`: how long an experiment must run. From the
 * planner (`GET …/experiences/{name}/plan`, docs/planning.md): for the metric chosen (default the primary goal) and the
 * smallest relative change worth detecting typed in percent, the people each variation needs and in all for 80 % power,
 * fixed-horizon beside sequential (the experiment's own test marked), and the days the project's recent traffic takes;
 * for a running experiment (or a planned number of days), the change it can detect by its end. Plan moves the page's
 * address to the figures asked for (`svc-admin:navigate`).
 *
 * @tagname svc-admin-plan
 * @summary The console's planner of one experiment.
 *
 * @attr status - Reflected, read-only: `loading`, `ready`, `empty` (no baseline: no traffic yet) or `error`.
 *
 * @fires svc-admin:navigate - Plan (the same page for other figures), Results, or Back to experiences.
 */
export class SvcAdminPlan extends ApiView {
  static override styles = [adminStyles, factsStyles, css`
    form.plan {
      display: grid;
      grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr));
      align-items: end;
      gap: 0.75rem 1rem;
      margin: 0 0 1rem;
      padding: 1rem 1.25rem;
      border: 1px solid #d1d9e0;
      border-radius: 10px;
      background: #fff;
    }
    form.plan .hint,
    form.plan .field-error {
      grid-column: 1 / -1;
    }
    form.plan button {
      justify-self: start;
    }
    .suffixed {
      display: flex;
      align-items: center;
      gap: 0.375rem;
    }
    caption {
      padding: 0.75rem 0.75rem 0.25rem;
      font-weight: 600;
      text-align: start;
    }
    tfoot th,
    tfoot td {
      background: #f6f8fa;
      font-weight: 600;
    }
    th .badge {
      margin-inline-start: 0.375rem;
    }
    @media (max-width: 40rem) {
      thead th {
        white-space: normal;
      }
      th .badge {
        display: block;
        inline-size: fit-content;
        margin: 0.25rem 0 0 auto;
      }
      th,
      td {
        padding-inline: 0.5rem;
      }
    }
    .detectable,
    .explain {
      margin-block-start: 1rem;
    }
    .detectable {
      padding: 0.75rem 1rem;
      border: 1px solid #d1d9e0;
      border-inline-start: 4px solid #0969da;
      border-radius: 6px;
      background: #fff;
    }
  `];

  static override properties = {
    experience: {},
    metric: {},
    mde: { type: Number },
    days: { type: Number },
    answer: { state: true },
    metrics: { state: true },
    goals: { state: true },
    fieldError: { state: true },
  };

  declare experience: string;
  /** The metric asked for; undefined: the experiment's primary goal. */
  declare metric: string | undefined;
  /** The relative change asked for (0.05 = 5 %); undefined: DEFAULT_MDE. */
  declare mde: number | undefined;
  /** A planned length in days, for the change it can detect. */
  declare days: number | undefined;
  declare answer: PlanAnswer | undefined;
  declare metrics: Metric[];
  declare goals: string[];
  /** Why the figures typed cannot be planned. */
  declare fieldError: string;
  #count = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
  #percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 2 });
  #number = new Intl.NumberFormat(undefined, { maximumSignificantDigits: 4 });
  #date = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

  constructor() {
    super();
    this.experience = '';
    this.metrics = [];
    this.goals = [];
    this.fieldError = '';
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    const asked = changed.has('experience') || changed.has('metric') || changed.has('mde') || changed.has('days');
    if (asked && !changed.has('api')) void this.reload();
  }

  protected override async load(api: AdminApi, signal: AbortSignal): Promise<void> {
    this.status = 'loading';
    const query: Record<string, string> = { mde: String(this.mde ?? DEFAULT_MDE) };
    if (this.metric) query.metric = this.metric;
    if (this.days) query.days = String(this.days);
    const [experience, metrics, answer] = await Promise.all([
      api.experience(this.experience, signal), api.metrics(signal), api.plan(this.experience, query, signal),
    ]);
    if (signal.aborted) return;
    this.goals = experience.goals ?? [];
    this.metrics = metrics;
    this.answer = answer;
    this.error = undefined;
    this.status = answer.gap === 'no-traffic' ? 'empty' : 'ready';
  }

  override render() {
    return html`
      <div class="toolbar">
        <h1 tabindex="-1" data-heading>Plan <code>${this.experience}</code></h1>
        <div class="buttons">
          <button type="button" @click=${() => navigate(this, { name: 'results', experience: this.experience })}>Results</button>
          <button type="button" @click=${() => navigate(this, { name: 'experiences' })}>Back to experiences</button>
        </div>
      </div>
      ${this.#form()}
      <div class="figures" aria-busy=${this.status === 'loading' ? 'true' : 'false'}>${this.#body()}</div>
    `;
  }

  #form(): TemplateResult {
    const chosen = this.metric ?? this.answer?.metric ?? this.goals[0] ?? '';
    const names = [...this.goals, ...this.metrics.map((m) => m.name).filter((n) => !this.goals.includes(n))];
    if (chosen && !names.includes(chosen)) names.unshift(chosen);
    const invalid = this.fieldError ? 'true' : 'false';
    return html`<form class="plan" @submit=${this.#plan} novalidate>
      <div class="field"><label for="plan-metric">Metric</label>
        <select id="plan-metric" name="metric">
          ${names.length === 0 ? html`<option value="">The primary goal</option>` : nothing}
          ${names.map((n) => html`<option value=${n} ?selected=${n === chosen}>${n}${n === this.goals[0] ? ' (primary goal)' : ''}</option>`)}
        </select></div>
      <div class="field"><label for="plan-mde">Smallest change worth detecting</label>
        <span class="suffixed"><input id="plan-mde" name="mde" inputmode="decimal" .value=${String(+((this.mde ?? DEFAULT_MDE) * 100).toPrecision(6))}
          aria-describedby="plan-hint plan-error" aria-invalid=${invalid}><span aria-hidden="true">%</span></span></div>
      <div class="field"><label for="plan-days">Planned days (optional)</label>
        <input id="plan-days" name="days" inputmode="numeric" .value=${this.days ? String(this.days) : ''} aria-describedby="plan-hint plan-error"
          aria-invalid=${invalid}></div>
      <button type="submit" class="primary">Plan</button>
      <p id="plan-hint" class="hint">A relative change: 5% of a 4% conversion rate is 4.2%. With planned days, the page also says what
        that run can detect.</p>
      <p id="plan-error" class="field-error" role="alert">${this.fieldError}</p>
    </form>`;
  }

  #plan = (e: SubmitEvent): void => {
    e.preventDefault();
    const data = new FormData(e.target as HTMLFormElement);
    const percent = Number(String(data.get('mde') ?? '').trim().replace(',', '.'));
    const daysText = String(data.get('days') ?? '').trim();
    const days = daysText === '' ? undefined : Number(daysText);
    if (!(percent > 0) || percent > 1000) {
      this.fieldError = 'Type a change greater than 0% and at most 1,000%.';
      return;
    }
    if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 3650)) {
      this.fieldError = 'Planned days: a whole number from 1 to 3650, or nothing.';
      return;
    }
    this.fieldError = '';
    const metric = String(data.get('metric') ?? '') || undefined;
    const mde = percent / 100;
    this.metric = metric;
    this.mde = mde;
    this.days = days;
    navigate(this, { name: 'plan', experience: this.experience, ...(metric ? { metric } : {}), mde, ...(days ? { days } : {}) });
  };

  #body(): TemplateResult {
    if (this.status === 'loading') {
      return html`<div class="state" role="status"><div class="spinner" aria-hidden="true"></div><p>Planning…</p></div>`;
    }
    const a = this.answer;
    if (this.status === 'error' || !a) {
      return html`<div class="alert error" role="alert"><strong>The plan could not be made</strong>${this.error?.message ?? ''}
        <div class="buttons"><button type="button" @click=${() => void this.reload()}>Try again</button></div></div>`;
    }
    if (a.gap) return html`<div class="state empty" data-gap=${a.gap}><p>${GAPS[a.gap](a.metric)}</p></div>`;
    return html`${this.#facts(a)}${this.#table(a)}${this.#detectable(a)}
      <p class="hint explain">Fixed horizon: read the results once, when the units are in. Sequential: read them every day and stop
        as soon as one is significant; the price is more units. Units are people; days assume the experiment gets
        ${this.#percent.format(a.trafficShare)} of the project's people, as many a day as in the last ${this.#number.format(a.baseline.days)} days.</p>`;
  }

  #facts(a: PlanAnswer): TemplateResult {
    const b = a.baseline;
    const fact = (term: string, value: string, key: string) => html`<div data-fact=${key}><dt>${term}</dt><dd>${value}</dd></div>`;
    const baseline = a.metricType === 'binomial'
      ? `${this.#percent.format(b.mean ?? 0)} converted`
      : `mean ${this.#number.format(b.mean ?? 0)} (sd ${this.#number.format(b.stddev ?? 0)})`;
    const tested = `α ${this.#number.format(a.analysis.alpha)}, ${this.#percent.format(a.analysis.power)} power`
      + (a.analysis.comparisons > 1 ? `, α/${a.analysis.comparisons} per comparison` : '');
    return html`<dl class="facts" aria-label="What the plan starts from">
      ${fact(`${a.metric} per person`, baseline, 'baseline')}
      ${fact('People a day', this.#count.format(b.unitsPerDay), 'per-day')}
      ${fact('Change to detect', this.#percent.format(a.mde), 'mde')}
      ${fact('Test', tested, 'test')}
    </dl>`;
  }

  #table(a: PlanAnswer): TemplateResult {
    const own = (interval: PlanAnswer['interval']) => (a.interval === interval ? html`<span class="badge running">this experiment</span>` : nothing);
    const units = (n: number | null): string => (n === null ? '—' : this.#count.format(n));
    const days = (n: number | null): string => (n === null ? '—' : `${this.#count.format(n)} ${n === 1 ? 'day' : 'days'}`);
    return html`<div class="table-scroll" role="region" aria-labelledby="plan-caption" tabindex="0"><table>
      <caption id="plan-caption">People needed to detect a ${this.#percent.format(a.mde)} change in ${a.metric}</caption>
      <thead><tr><th scope="col">Variation</th><th scope="col" class="num">Fixed horizon${own('fixed-horizon')}</th>
        <th scope="col" class="num">Sequential${own('sequential')}</th></tr></thead>
      <tbody>${a.fixedHorizon.variations.map((v, i) => html`<tr data-variation=${v.name}>
        <th scope="row">${v.name} <span class="muted">${this.#percent.format(v.weight / 100)}</span></th>
        <td class="num">${units(v.units)}</td><td class="num">${units(a.sequential.variations[i]?.units ?? null)}</td></tr>`)}</tbody>
      <tfoot>
        <tr data-row="total"><th scope="row">All variations</th><td class="num">${units(a.fixedHorizon.units)}</td><td class="num">${units(a.sequential.units)}</td></tr>
        <tr data-row="days"><th scope="row">Days at recent traffic</th><td class="num">${days(a.fixedHorizon.days)}</td><td class="num">${days(a.sequential.days)}</td></tr>
      </tfoot>
    </table></div>`;
  }

  #detectable(a: PlanAnswer): TemplateResult | typeof nothing {
    const d = a.detectable;
    if (!d) return nothing;
    const mde = (x: number | null): string => (x === null ? 'no change within reach' : this.#percent.format(x));
    return html`<p class="detectable" data-detectable>By <strong>${this.#date.format(new Date(d.byDate))}</strong>, with about
      ${this.#count.format(d.units)} people${d.unitsSoFar > 0 ? ` (${this.#count.format(d.unitsSoFar)} so far)` : ''}, this experiment can
      detect a change of <strong>${mde(d.mde)}</strong> (fixed horizon ${mde(d.fixedHorizonMde)}, sequential ${mde(d.sequentialMde)}).</p>`;
  }
}
