import { html, LitElement, nothing, type TemplateResult } from 'lit';
import type { ResultsAnswer, ResultsPhase, ResultsReweight } from '../wire/results-answer.js';
import { adminStyles } from './admin-styles.js';
import { formatShare, weightsChart, weightSteps, type WeightsStep } from './bandit-weights-chart.js';
import { banditWeightsStyles } from './bandit-weights-styles.js';
import { label } from './cell-label.js';
import { BANDIT_DEFAULTS, type Experience } from './experience.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-bandit-weights': SvcAdminBanditWeights;
  }
}

const HOUR = 3_600_000;

/**
 * `<svc-admin-bandit-weights>`: a bandit experiment's weights on its results page. Its settings in a sentence; before
 * the first reweight, how long it explores with equal weights; after, a chart of the weights over the phase (each arm a
 * coloured band, named in the legend) and the table of reweights (when, why, each arm's weight and its chance of being
 * best then), which is the chart's text alternative; and that the results are stratified by the periods between
 * reweights.
 *
 * @tagname svc-admin-bandit-weights
 * @summary A bandit's weights over time, on the console's results page.
 *
 * @attr status - Reflected, read-only: `loading` (no results yet), `empty` (no reweight yet) or `ready`.
 */
export class SvcAdminBanditWeights extends LitElement {
  static override styles = [adminStyles, banditWeightsStyles];

  static override properties = {
    experience: { attribute: false },
    answer: { attribute: false },
    status: { reflect: true },
  };

  /** The experiment (its variations, goals and bandit settings). */
  declare experience: Experience | undefined;
  /** The results answer whose phase and reweights are shown. */
  declare answer: ResultsAnswer | undefined;
  declare status: 'loading' | 'empty' | 'ready';
  #time = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  #clock = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });
  #day = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });

  constructor() {
    super();
    this.status = 'loading';
  }

  protected override willUpdate(): void {
    this.status = !this.answer ? 'loading' : this.answer.reweights?.length ? 'ready' : 'empty';
  }

  override render() {
    const e = this.experience;
    const a = this.answer;
    const reweights = a?.reweights ?? [];
    const phase = a?.phases.find((p) => p.phase === a.phase);
    return html`<section class="panel" aria-labelledby="weights-title">
      <h2 id="weights-title">Bandit weights</h2>
      <p class="settings">${e ? this.#settings(e) : '…'}</p>
      ${!a ? html`<p class="muted" role="status">Loading the weights…</p>`
        : reweights.length && phase ? this.#chart(phase, reweights) : this.#exploring(phase)}
      ${a ? html`<p class="note">The results below are <strong>stratified by the ${reweights.length + 1} period${reweights.length ? 's' : ''}
        between reweights</strong>: each period's units are compared under that period's weights and the periods combined,
        so an arm that got more traffic later, when conversion was higher, does not win by the calendar.</p>` : nothing}
    </section>`;
  }

  #settings(e: Experience): TemplateResult | string {
    // An earlier phase of an experiment that is no longer a bandit: its settings now say nothing of that phase.
    if (e.allocation !== 'bandit') return 'On fixed weights now; in this phase it was a bandit.';
    const b = e.bandit ?? {};
    const units = b.explorationUnits ?? BANDIT_DEFAULTS.explorationUnits;
    const hours = b.explorationHours ?? BANDIT_DEFAULTS.explorationHours;
    const exploration = [...(hours ? [`${hours} h`] : []), ...(units ? [`${units.toLocaleString()} units`] : [])];
    return html`Decides by <strong>${b.metric ?? e.goals?.[0] ?? '(no goal)'}</strong> ·
      ${exploration.length ? `explores with equal weights for ${exploration.join(' and ')}` : 'no exploration'} ·
      reweights every ${b.cadenceMinutes ?? BANDIT_DEFAULTS.cadenceMinutes} min · every arm keeps at least ${b.minShare ?? BANDIT_DEFAULTS.minShare}%`;
  }

  /** Before the first reweight: equal weights, until when. */
  #exploring(phase: ResultsPhase | undefined): TemplateResult {
    const b = this.experience?.bandit ?? {};
    const hours = b.explorationHours ?? BANDIT_DEFAULTS.explorationHours;
    const units = b.explorationUnits ?? BANDIT_DEFAULTS.explorationUnits;
    const started = phase?.startedAt ? Date.parse(phase.startedAt) : undefined;
    const cadence = b.cadenceMinutes ?? BANDIT_DEFAULTS.cadenceMinutes;
    const unitsPart = units ? ` and at least ${units.toLocaleString()} units (${(this.answer?.units ?? 0).toLocaleString()} so far)` : '';
    const until = started === undefined ? `${hours} hours after its first exposure` : this.#time.format(started + hours * HOUR);
    return html`<div class="empty" role="status">
      <p><strong>Exploring: equal weights until ${until}${unitsPart}.</strong></p>
      <p class="muted">Then the service draws the weights again every ${cadence} minutes from each arm's chance of being best;
        each reweight shows here.</p>
    </div>`;
  }

  #chart(phase: ResultsPhase, reweights: readonly ResultsReweight[]): TemplateResult {
    const arms = this.#arms(reweights);
    const start = phase.startedAt ? Date.parse(phase.startedAt) : Date.parse(reweights[0]!.at);
    const end = phase.endedAt ? Date.parse(phase.endedAt) : Math.max(Date.now(), Date.parse(reweights[reweights.length - 1]!.at));
    const steps = weightSteps(start, end, phase.weights, reweights);
    const format = { time: (t: number) => this.#clock.format(t), date: (t: number) => this.#day.format(t) };
    return html`<figure>
      <figcaption>Each arm's share of new people over phase ${phase.phase}, from ${this.#time.format(start)}
        ${phase.endedAt ? `to ${this.#time.format(end)}` : 'to now'}</figcaption>
      ${weightsChart(steps, arms, this.#summary(steps, arms, reweights.length), format)}
    </figure>
    ${this.#table(arms, phase, reweights)}`;
  }

  /** The arms in the experiment's order, then any a reweight names that it no longer has. */
  #arms(reweights: readonly ResultsReweight[]): string[] {
    const arms = (this.experience?.variations ?? this.answer?.variations ?? []).map((v) => v.name);
    for (const r of reweights) for (const name of Object.keys(r.weights)) if (!arms.includes(name)) arms.push(name);
    return arms;
  }

  #summary(steps: readonly WeightsStep[], arms: readonly string[], count: number): string {
    const now = steps[steps.length - 1]!.weights;
    return `Weights of ${arms.length} arms from ${this.#time.format(steps[0]!.from)}, after ${count} reweight${count === 1 ? '' : 's'}: `
      + `${arms.map((arm) => `${arm} ${formatShare(now[arm])}`).join(', ')}.`;
  }

  /** The reweights, newest first, then the phase's start: each arm's weight and its chance of being best then. */
  #table(arms: readonly string[], phase: ResultsPhase, reweights: readonly ResultsReweight[]): TemplateResult {
    const best = (r: ResultsReweight, arm: string): string => {
      const p = r.arms.find((x) => x.name === arm)?.probabilityBest;
      return p === undefined ? '' : `best ${Math.round(p * 1000) / 10}%`;
    };
    // A card per reweight on a phone (each cell then says its column), so that every arm reads without scrolling.
    return html`<div class="table-scroll" role="region" aria-labelledby="reweights-caption" tabindex="0"><table class="reweights cards">
      <caption id="reweights-caption">Reweights, newest first: each arm's weight and its chance of being best when it was drawn</caption>
      <thead><tr><th scope="col">Time</th><th scope="col">Why</th>${arms.map((arm) => html`<th scope="col" class="num">${arm}</th>`)}</tr></thead>
      <tbody>
        ${[...reweights].reverse().map((r) => html`<tr>
          <th scope="row"><time datetime=${r.at}>${this.#time.format(Date.parse(r.at))}</time></th>
          <td>${label('Why')}${r.reason === 'exploration' ? 'exploring (equal)' : r.reason === 'thompson' ? 'Thompson sampling' : '—'}</td>
          ${arms.map((arm) => html`<td class="num">${label(arm)}<span>${formatShare(r.weights[arm])}<span class="best">${best(r, arm)}</span></span></td>`)}
        </tr>`)}
        <tr>
          <th scope="row">${phase.startedAt ? html`<time datetime=${phase.startedAt}>${this.#time.format(Date.parse(phase.startedAt))}</time>` : 'Start'}</th>
          <td>${label('Why')}phase ${phase.phase} starts</td>
          ${arms.map((arm) => html`<td class="num">${label(arm)}${formatShare(phase.weights[arm])}</td>`)}
        </tr>
      </tbody>
    </table></div>`;
  }
}
