import { css, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { AdminApi } from './admin-api.js';
import { navigate } from './admin-events.js';
import { adminStyles, factsStyles } from './admin-styles.js';
import { ApiView } from './api-view.js';
import { stopReason } from './audit-log.js';
import type { Experience } from './experience.js';
import type { ResultsAnswer } from '../wire/results-answer.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-results': SvcAdminResults;
  }
}

/** What `<svc-results>` tells its page when the person picks another phase, metric or breakdown in it. */
interface ResultsViewDetail {
  phase?: number;
  metric?: string;
  dimension?: string;
}

/**
 * `<svc-admin-results experience="hero" phase="2" dimension="device">`: an experiment's results page. Above
 * `<svc-results>` (which draws the tables, the date graph and the breakdown), what a reader checks before trusting the
 * numbers: the experiment's status, when it started and stopped, its winner, its primary goal, the phase shown, when
 * the numbers were computed (with a Refresh button), and why the service stopped it, if it did; for a bandit, its
 * weights over time (`<svc-admin-bandit-weights>`). A change of phase,
 * metric or breakdown made in the results moves the page's address (`svc-admin:navigate`), so Back returns to it.
 *
 * @tagname svc-admin-results
 * @summary The console's results page of one experiment.
 *
 * @fires svc-admin:navigate - Back to the list, to the editor, to the plan, or the same page for another phase, metric or breakdown.
 */
export class SvcAdminResults extends ApiView {
  static override styles = [adminStyles, factsStyles, css`
    .alert {
      margin-block-end: 1rem;
    }
    form.attribute {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.5rem 0.75rem;
      margin: 0 0 1rem;
    }
    form.attribute label {
      font-weight: 600;
    }
    form.attribute input {
      inline-size: 12rem;
      max-inline-size: 100%;
    }
    form.attribute .hint {
      flex-basis: 100%;
      margin: 0;
    }
    svc-admin-bandit-weights {
      display: block;
      margin-block-end: 1rem;
    }
    svc-results {
      display: block;
      padding: 1.25rem;
      border: 1px solid #d1d9e0;
      border-radius: 10px;
      background: #fff;
    }
    @media (max-width: 40rem) {
      .facts {
        padding: 0.75rem;
      }
      svc-results {
        padding: 0.75rem;
      }
    }
  `];

  static override properties = {
    experience: {},
    base: {},
    // `all` or a phase number (the attribute's text; the console sets the property).
    phase: { converter: (value: string | null) => (value === null ? undefined : value === 'all' ? 'all' : Number(value)) },
    metric: {},
    dimension: {},
    item: { state: true },
    answer: { state: true },
    computedAt: { state: true },
    readOnly: { type: Boolean },
  };

  /** The signed-in key may only read (a viewer): no Edit. */
  declare readOnly: boolean;

  declare experience: string;
  /** The service's base URL, ending in `/v1`. */
  declare base: string;
  /** The phase asked for: a number, `all` (every phase, stratified), or undefined: the current one. */
  declare phase: number | 'all' | undefined;
  declare metric: string | undefined;
  declare dimension: string | undefined;
  declare item: Experience | undefined;
  declare answer: ResultsAnswer | undefined;
  /** When the results shown were computed (their answer arrived). */
  declare computedAt: Date | undefined;
  #time = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

  constructor() {
    super();
    this.experience = '';
    this.base = `${location.origin}/v1`;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    if (changed.has('experience') && !changed.has('api')) void this.reload();
  }

  protected override async load(api: AdminApi, signal: AbortSignal): Promise<void> {
    const item = await api.experience(this.experience, signal);
    if (signal.aborted) return;
    this.item = item;
    this.error = undefined;
    this.status = 'ready';
  }

  /** Fetches the results again (the facts above them come with the answer). */
  async refresh(): Promise<void> {
    await Promise.all([this.renderRoot.querySelector('svc-results')?.refresh(), this.reload()]);
  }

  override render() {
    const api = this.api;
    return html`
      <div class="toolbar">
        <h1 tabindex="-1" data-heading>Results of <code>${this.experience}</code></h1>
        <div class="buttons">
          <button type="button" @click=${() => void this.refresh()}>Refresh</button>
          <button type="button" @click=${() => navigate(this, { name: 'plan', experience: this.experience })}>Plan</button>
          ${this.readOnly ? nothing : html`<button type="button" @click=${() => navigate(this, { name: 'editor', experience: this.experience })}>Edit</button>`}
          <button type="button" @click=${() => navigate(this, { name: 'experiences' })}>Back to experiences</button>
        </div>
      </div>
      ${this.#stopped()}
      ${this.#facts()}
      ${this.item?.allocation === 'bandit' || this.answer?.reweights?.length
        ? html`<svc-admin-bandit-weights .experience=${this.item} .answer=${this.answer}></svc-admin-bandit-weights>`
        : nothing}
      ${this.#attributeForm()}
      ${api
        ? html`<svc-results session organization=${api.organization} project=${api.project} experience=${this.experience} api=${this.base}
            phase=${this.phase === undefined ? '' : String(this.phase)} metrics=${this.metric ?? ''}
            dimension=${this.dimension ?? ''} series="day"
            @svc:results=${(e: CustomEvent<ResultsAnswer>) => this.#answered(e.detail)}
            @svc:results-view=${(e: CustomEvent<ResultsViewDetail>) => this.#moved(e.detail)}></svc-results>`
        : nothing}
    `;
  }

  #answered(answer: ResultsAnswer): void {
    this.answer = answer;
    this.computedAt = new Date();
  }

  #moved(detail: ResultsViewDetail): void {
    navigate(this, {
      name: 'results', experience: this.experience,
      ...(detail.phase !== undefined ? { phase: detail.phase } : this.phase !== undefined ? { phase: this.phase } : {}),
      ...('metric' in detail ? (detail.metric ? { metric: detail.metric } : {}) : this.metric ? { metric: this.metric } : {}),
      ...('dimension' in detail ? (detail.dimension ? { dimension: detail.dimension } : {}) : this.dimension ? { dimension: this.dimension } : {}),
    });
  }

  /** A breakdown by a profile attribute the reader names (`plan`): the results' own select offers the fixed ones. */
  #attributeForm(): TemplateResult {
    const current = this.dimension?.startsWith('attribute:') ? this.dimension.slice('attribute:'.length) : '';
    const submit = (e: SubmitEvent): void => {
      e.preventDefault();
      const key = new FormData(e.target as HTMLFormElement).get('attribute')?.toString().trim() ?? '';
      this.#moved({ dimension: key ? `attribute:${key}` : '' });
    };
    return html`<form class="attribute" @submit=${submit}>
      <label for="attribute">Break down by a profile attribute</label>
      <input id="attribute" name="attribute" spellcheck="false" autocapitalize="off" placeholder="plan" .value=${current}
        aria-describedby="attribute-hint">
      <button type="submit">Break down</button>
      <p id="attribute-hint" class="hint">A key identify sets on profiles (userAttributes), as it is now; empty: no breakdown.</p>
    </form>`;
  }

  #stopped(): TemplateResult | typeof nothing {
    const stop = this.item?.status === 'stopped' ? this.item.stoppedBy : undefined;
    if (!stop) return nothing;
    return html`<div class="alert error" role="alert"><strong>Stopped by the service on ${this.#date(stop.at)}</strong>
      ${stopReason(stop)}. Nobody gets the experiment until it is started again (or a winner is shipped).</div>`;
  }

  #facts(): TemplateResult {
    const e = this.item;
    const a = this.answer;
    const phases = a?.phases ?? [];
    const shown = phases.find((p) => p.phase === a?.phase);
    const primary = e?.goals?.[0];
    const fact = (term: string, value: TemplateResult | string) => html`<div><dt>${term}</dt><dd>${value}</dd></div>`;
    return html`<dl class="facts" aria-label="About these results">
      ${fact('Status', e ? html`<span class="badge ${e.status}">${e.status}</span>` : '…')}
      ${fact('Started', phases[0]?.startedAt ? this.#date(phases[0].startedAt) : 'not yet')}
      ${fact('Stopped', e?.status === 'stopped' && phases.at(-1)?.endedAt ? this.#date(phases.at(-1)!.endedAt!) : '—')}
      ${fact('Winner', e?.winner ? html`<strong>${e.winner}</strong>` : '—')}
      ${fact('Primary goal', primary ?? 'none chosen (every metric)')}
      ${fact('Phase', a?.allPhases
        ? `All ${phases.length} phases, combined`
        : shown ? `${shown.phase} of ${phases.length}${shown.reason ? ` · ${shown.reason}` : ''}` : '…')}
      ${fact('Computed', this.computedAt ? html`<time datetime=${this.computedAt.toISOString()}>${this.#time.format(this.computedAt)}</time>` : '…')}
    </dl>`;
  }

  #date(iso: string): string {
    return this.#time.format(new Date(iso));
  }
}
