import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import {
  fetchResults, isError, type MetricResult, type ResultsAnswer, type ResultsError, type ResultsQuery, type VariationStats,
} from './results-answer.js';
import { intervalChart, verdictOf } from './results-chart.js';
import {
  BASELINE_REASON, localeOf, meanDigits, meanLabel, missingReason, resultsFormat, typeLabel, type ResultsFormat,
} from './results-format.js';
import { resultsStyles } from './results-styles.js';

export type ResultsState = 'loading' | 'ready' | 'empty' | 'error';

declare global {
  interface HTMLElementTagNameMap {
    'svc-results': SvcResults;
  }
  interface GlobalEventHandlersEventMap {
    'svc:results': CustomEvent<ResultsAnswer>;
    'svc:results-error': CustomEvent<ResultsError>;
  }
  interface WindowEventMap {
    'svc:results': CustomEvent<ResultsAnswer>;
    'svc:results-error': CustomEvent<ResultsError>;
  }
}

/** The properties a request is made of: a change of any of them fetches again. */
const QUERY_KEYS = ['experience', 'apiKey', 'organization', 'project', 'api', 'metrics', 'dimension'] as const;

/**
 * `<svc-results organization="acme" project="shop" experience="hero-banner">` shows an experiment's results, for
 * admin pages: per metric a table (units, mean, uplift with its 95% interval, chance to win, p-value) and a chart
 * of the intervals against zero, with a warning when the units' split does not match the weights (sample ratio
 * mismatch). With `dimension="device"` a section per device follows the overall one. The server key is the
 * `apiKey` property, never an attribute: a key in markup would leak with the page. Server strings are rendered
 * as text, never as HTML; numbers are written in the language of the closest `lang`, else the browser's.
 *
 * @tagname svc-results
 * @summary An experiment's results for admin pages: a table and an interval chart per metric.
 *
 * @example
 * <svc-results organization="acme" project="shop" experience="hero-banner" dimension="device"></svc-results>
 * <script type="module">document.querySelector('svc-results').apiKey = await keyFromYourBackend();</script>
 *
 * @attr experience - The experiment's name.
 * @attr organization - The organization of the project.
 * @attr project - The project the experiment runs in.
 * @attr api - The service's base URL, ending in `/v1`; default `location.origin + '/v1'`.
 * @attr metrics - Comma-separated metric names; default: every metric of the project.
 * @attr dimension - A dimension to break the results down by, e.g. `device`.
 * @attr status - Reflected, read-only: `loading`, `ready`, `empty` (no unit exposed yet) or `error`.
 *
 * @fires svc:results - An answer arrived (state `ready` or `empty`); `detail` is the service's answer.
 * @fires svc:results-error - No answer (state `error`); `detail` is `{status, code, message}`.
 *
 * @csspart header - The experiment's name, its units and notes above the results.
 * @csspart title - The experiment's name.
 * @csspart summary - The line of totals under the name.
 * @csspart banner - The sample ratio mismatch warning.
 * @csspart section - The overall results, and each dimension value's.
 * @csspart metric - One metric: its table and its chart.
 * @csspart table-scroll - The table's container, which scrolls horizontally on narrow screens.
 * @csspart table - A metric's table.
 * @csspart chart - A metric's interval chart (a figure with its caption and SVG).
 * @csspart state - The message shown while loading, when empty and on error; also `loading`, `empty`, `error`.
 *
 * @cssprop --svc-results-font - Font shorthand of the element.
 * @cssprop --svc-results-color - Text colour.
 * @cssprop --svc-results-muted - Secondary text colour (notes, axis labels).
 * @cssprop --svc-results-positive - An interval above zero (better than the control).
 * @cssprop --svc-results-negative - An interval below zero (worse than the control).
 * @cssprop --svc-results-neutral - An interval across zero (inconclusive).
 * @cssprop --svc-results-zero - The chart's zero line.
 * @cssprop --svc-results-grid - The chart's grid lines.
 * @cssprop --svc-results-border - Borders of the table and state messages.
 * @cssprop --svc-results-header-background - Background of the table's header row.
 * @cssprop --svc-results-background - The page background, behind the sticky variation column and the chart's labels.
 * @cssprop --svc-results-radius - Corner radius.
 * @cssprop --svc-results-accent - The loading indicator.
 * @cssprop --svc-results-focus - Focus outline of the scrollable table.
 * @cssprop --svc-results-warning-background - Background of the warning banner.
 * @cssprop --svc-results-warning-border - Border of the warning banner.
 * @cssprop --svc-results-warning-color - Text colour of the warning banner.
 * @cssprop --svc-results-min-height - Height of the loading, empty and error messages.
 */
export class SvcResults extends LitElement {
  static override styles = resultsStyles;
  static override properties = {
    experience: {},
    // Property only, never an attribute, never reflected: a key in markup leaks with the page's HTML.
    apiKey: { attribute: false },
    organization: {},
    project: {},
    api: {},
    metrics: {},
    dimension: {},
    status: { reflect: true },
    results: { attribute: false },
    error: { attribute: false },
  };

  declare experience: string;
  /** The project's server key (`?apiKey=`). Set it from script; it is never read from nor written to an attribute. */
  declare apiKey: string;
  declare organization: string;
  declare project: string;
  /** Base URL of the service, ending in `/v1`. */
  declare api: string;
  /** Comma-separated metric names; empty: every metric of the project. */
  declare metrics: string;
  /** Break the results down by this dimension (e.g. `device`); empty: overall only. */
  declare dimension: string;
  declare status: ResultsState;
  /** The last answer (state `ready` or `empty`). */
  declare results: ResultsAnswer | undefined;
  /** Why there are no results (state `error`). */
  declare error: ResultsError | undefined;
  #request: AbortController | undefined;
  #format: ResultsFormat | undefined;

  constructor() {
    super();
    this.experience = '';
    this.apiKey = '';
    this.organization = '';
    this.project = '';
    this.api = `${location.origin}/v1`;
    this.metrics = '';
    this.dimension = '';
    this.status = 'loading';
  }

  /**
   * Fetches the results again. Without experience, organization, project and apiKey the element stays `loading`
   * until they are set.
   * @example await document.querySelector('svc-results').refresh();
   */
  async refresh(): Promise<void> {
    this.#request?.abort();
    this.#request = undefined;
    this.status = 'loading';
    this.results = undefined;
    this.error = undefined;
    const query = this.#query();
    if (!query) return;
    const request = (this.#request = new AbortController());
    const answer = await fetchResults(query, request.signal);
    if (request.signal.aborted) return; // a newer request, or the element left the page
    this.#request = undefined;
    if (isError(answer)) {
      this.error = answer;
      this.status = 'error';
    } else {
      this.results = answer;
      this.status = answer.units > 0 ? 'ready' : 'empty';
    }
    // Announced once rendered, so a listener finds the tables in place.
    await this.updateComplete;
    if (request.signal.aborted) return;
    const detail = this.error ?? this.results;
    this.dispatchEvent(new CustomEvent(this.error ? 'svc:results-error' : 'svc:results', { detail, bubbles: true, composed: true }));
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.hasAttribute('apikey') || this.hasAttribute('api-key')) {
      console.warn('[svc] <svc-results> ignores an apiKey attribute: a key in markup leaks with the page. Set the apiKey property.');
    }
    // Back in a page after its request was cut short by leaving it.
    if (this.hasUpdated && this.status === 'loading' && !this.#request) void this.refresh();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#request?.abort();
    this.#request = undefined;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (QUERY_KEYS.some((k) => changed.has(k))) void this.refresh();
  }

  #query(): ResultsQuery | undefined {
    const { experience, apiKey, organization, project } = this;
    if (!experience || !apiKey || !organization || !project) return undefined;
    return {
      api: this.api || `${location.origin}/v1`,
      organization,
      project,
      experience,
      apiKey,
      metrics: (this.metrics ?? '').split(',').map((m) => m.trim()).filter(Boolean),
      dimension: (this.dimension ?? '').trim(),
    };
  }

  /** The formatters of the element's language, made again only when the language changed. */
  #formatter(): ResultsFormat {
    const locale = localeOf(this);
    if (this.#format?.locale !== locale || !this.#format) this.#format = resultsFormat(locale);
    return this.#format;
  }

  override render() {
    const { status, results, error } = this;
    if (status === 'error') {
      return html`<div part="state error" role="alert">
        <p><strong>The results could not be loaded.</strong></p>
        <p>${error?.message ?? ''}</p>
      </div>`;
    }
    if (status === 'empty') {
      const name = results?.experience || this.experience;
      const left = results?.multipleExposures ?? 0;
      // Exposed units that all saw more than one variation (a person identified across devices): none remains.
      return html`<div part="state empty" role="status">
        <p>${left > 0
          ? html`${this.#formatter().units(left)} ${left === 1 ? 'unit was' : 'units were'} exposed to <strong>${name}</strong>
            but saw more than one variation, so ${left === 1 ? 'it is' : 'they are'} left out and there are no results.`
          : html`No one has been exposed to <strong>${name}</strong> yet, so there are no results.`}</p>
      </div>`;
    }
    if (status !== 'ready' || !results) {
      return html`<div part="state loading" role="status">
        <div class="spinner" aria-hidden="true"></div>
        <p>Loading results…</p>
      </div>`;
    }
    return this.#ready(results, this.#formatter());
  }

  #ready(r: ResultsAnswer, f: ResultsFormat): TemplateResult {
    const dimensions = r.dimensions ?? [];
    const split = r.variations.map((v) => `${v.name} ${f.units(v.units)}`).join(', ');
    return html`
      <header part="header">
        <h2 part="title">${r.experience}</h2>
        <p part="summary">${f.units(r.units)} ${r.units === 1 ? 'unit' : 'units'} exposed${split ? `: ${split}` : ''}</p>
        ${r.multipleExposures > 0
          ? html`<p class="note">${f.units(r.multipleExposures)} ${r.multipleExposures === 1 ? 'unit was' : 'units were'} exposed to more than one variation and
              ${r.multipleExposures === 1 ? 'is' : 'are'} left out of these results.</p>`
          : nothing}
      </header>
      ${r.srm?.mismatch ? this.#srmBanner(r, f) : nothing}
      <section part="section" aria-labelledby=${dimensions.length ? 'section-all' : nothing}>
        ${dimensions.length ? html`<h3 id="section-all">All units</h3>` : nothing}
        ${r.metrics.map((m, i) => this.#metric(m, r.control, f, `all-${i}`, ''))}
      </section>
      ${dimensions.map((d, di) => html`
        <section part="section" aria-labelledby=${`section-${di}`}>
          <h3 id=${`section-${di}`}>${d.name}: ${d.value} <span class="muted">(${f.units(d.units)} units)</span></h3>
          ${d.metrics.map((m, i) => this.#metric(m, r.control, f, `d${di}-${i}`, `${d.name}: ${d.value}`))}
        </section>`)}
    `;
  }

  #srmBanner(r: ResultsAnswer, f: ResultsFormat): TemplateResult {
    const split = r.variations.map((v) => `${v.name} ${f.units(v.units)}`).join(', ');
    const weights = r.variations.map((v) => f.weight(v.weight)).join(' / ');
    const p = typeof r.srm.pValue === 'number' ? ` (p = ${f.pValue(r.srm.pValue)})` : '';
    return html`<div part="banner" role="alert">
      <strong>Sample ratio mismatch: these results may be biased.</strong>
      The units' split (${split}) does not match the configured weights (${weights})${p}. Check how exposures are
      recorded before acting on these numbers.
    </div>`;
  }

  #metric(m: MetricResult, control: string, f: ResultsFormat, id: string, scope: string): TemplateResult {
    const base = m.variations.find((v) => v.name === control);
    const caption = `caption-${id}`;
    const digits = meanDigits(m.variations.flatMap((v) => (typeof v.mean === 'number' ? [v.mean] : [])));
    return html`<div part="metric" class="metric">
      <div part="table-scroll" tabindex="0" role="region" aria-labelledby=${caption}>
        <table part="table">
          <caption id=${caption}>${m.name} <span class="muted">· ${typeLabel(m.type)}${m.cupedApplied ? ' · CUPED variance reduction' : ''}${scope ? ` · ${scope}` : ''}</span></caption>
          <thead>
            <tr>
              <th scope="col">Variation</th>
              <th scope="col">Units</th>
              <th scope="col">${meanLabel(m.type)}</th>
              <th scope="col">Uplift (95% CI)</th>
              <th scope="col">Chance to win</th>
              <th scope="col">p-value</th>
            </tr>
          </thead>
          <tbody>${m.variations.map((v) => this.#row(m, v, v.name === control, base, f, digits))}</tbody>
        </table>
      </div>
      ${intervalChart(m, control, f)}
    </div>`;
  }

  /** One variation's row; `base` is the control's stats. */
  #row(
    m: MetricResult, v: VariationStats, isControl: boolean, base: VariationStats | undefined, f: ResultsFormat, digits: number,
  ): TemplateResult {
    const why = isControl ? BASELINE_REASON : missingReason(v, base);
    const value = <T>(n: T | null | undefined, show: (n: T) => string): TemplateResult | string =>
      n === null || n === undefined ? missing(why) : show(n);
    const uplift = isControl
      ? html`<span class="muted">baseline</span>`
      : typeof v.uplift === 'number'
        ? html`${f.uplift(v.uplift)}${v.ci ? html`<span class="ci">${f.interval(v.ci)}</span>` : nothing}`
        : missing(why);
    return html`<tr>
      <th scope="row">${v.name}${isControl && v.name !== 'control' ? html`<span class="tag muted">control</span>` : nothing}</th>
      <td>${f.units(v.units)}</td>
      <td>${typeof v.mean === 'number' ? f.mean(m.type, v.mean, digits) : missing(missingMean(v))}</td>
      <td class=${isControl ? '' : verdictOf(v.ci)}>${uplift}</td>
      <td>${value(v.chanceToWin, f.chance)}</td>
      <td>${value(v.pValue, f.pValue)}</td>
    </tr>`;
  }
}

function missingMean(v: VariationStats): string {
  return v.units ? 'Not available: too few units to estimate.' : 'Not available: no units in this variation yet.';
}

/** A statistic the service could not compute: a dash to the eye, the reason to a screen reader and a pointer. */
function missing(reason: string): TemplateResult {
  return html`<span class="missing" title=${reason}><span aria-hidden="true">—</span><span class="sr-only">${reason}</span></span>`;
}
