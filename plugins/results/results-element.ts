import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { fetchResults, isError, type ResultsAnswer, type ResultsError, type ResultsQuery } from './results-answer.js';
import type { ResultsDifference } from './results-effect.js';
import { localeOf, resultsFormat, type ResultsFormat } from './results-format.js';
import { readingOf } from './results-reading.js';
import { resultsStyles } from './results-styles.js';
import { metricView } from './results-table.js';

export type ResultsState = 'loading' | 'ready' | 'empty' | 'error';
export type { ResultsDifference };

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
 * admin pages: per metric a table (units, mean, the uplift or the absolute difference with its interval, p-value,
 * the corrected p-value when the experiment asks for a correction, significance in words, chance to win, risk) and
 * a chart of the intervals against zero; a note says which intervals they are (fixed-horizon or sequential, at what
 * level), and a banner warns when the units' split does not match the weights (sample ratio mismatch). A radio
 * group switches between relative and absolute differences. With `dimension="device"` a section per device
 * follows the overall one. The server key is the
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
 * @attr difference - `relative` (default: the uplift, a percent of the control's mean) or `absolute` (the difference of
 *   the means in the metric's units: percentage points for a conversion rate). Reflected: the switch sets it.
 * @attr status - Reflected, read-only: `loading`, `ready`, `empty` (no unit exposed yet) or `error`.
 *
 * @fires svc:results - An answer arrived (state `ready` or `empty`); `detail` is the service's answer.
 * @fires svc:results-error - No answer (state `error`); `detail` is `{status, code, message}`.
 *
 * @csspart header - The experiment's name, its units and notes above the results.
 * @csspart title - The experiment's name.
 * @csspart summary - The line of totals under the name.
 * @csspart analysis - The note that says which intervals and p-values the results carry.
 * @csspart difference - The relative/absolute switch (a fieldset of two radio buttons).
 * @csspart banner - The sample ratio mismatch warning.
 * @csspart section - The overall results, and each dimension value's.
 * @csspart metric - One metric: its table and its chart.
 * @csspart table-scroll - The table's container, which scrolls horizontally on narrow screens.
 * @csspart table - A metric's table.
 * @csspart cuped - The note under a table that gives CUPED's θ and adjusted means.
 * @csspart chart - A metric's interval chart (a figure with its caption and SVG).
 * @csspart state - The message shown while loading, when empty and on error; also `loading`, `empty`, `error`.
 *
 * @cssprop --svc-results-font - Font shorthand of the element.
 * @cssprop --svc-results-color - Text colour.
 * @cssprop --svc-results-muted - Secondary text colour (notes, axis labels).
 * @cssprop --svc-results-positive - Significantly better than the control (for a lower-is-better metric: lower).
 * @cssprop --svc-results-negative - Significantly worse than the control.
 * @cssprop --svc-results-neutral - Not significant.
 * @cssprop --svc-results-zero - The chart's zero line.
 * @cssprop --svc-results-grid - The chart's grid lines.
 * @cssprop --svc-results-border - Borders of the table and state messages.
 * @cssprop --svc-results-header-background - Background of the table's header row.
 * @cssprop --svc-results-background - The page background, behind the sticky variation column and the chart's labels.
 * @cssprop --svc-results-radius - Corner radius.
 * @cssprop --svc-results-accent - The loading indicator.
 * @cssprop --svc-results-focus - Focus outline of the scrollable table and of the switch.
 * @cssprop --svc-results-selected-background - The switch's selected option.
 * @cssprop --svc-results-selected-color - The text of the switch's selected option.
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
    difference: { reflect: true },
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
  /**
   * Which difference the effect columns and charts show: `relative` (the uplift) or `absolute` (mean − control mean,
   * in the metric's units). Changing it re-renders the answer held; it does not fetch again.
   * @example document.querySelector('svc-results').difference = 'absolute';
   */
  declare difference: ResultsDifference;
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
    this.difference = 'relative';
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
    const difference: ResultsDifference = this.difference === 'absolute' ? 'absolute' : 'relative';
    const reading = readingOf(r.analysis, f);
    return html`
      <!-- A div, not a <header>: a header outside any section is the page's banner landmark, and a page keeps one. -->
      <div part="header">
        <h2 part="title">${r.experience}</h2>
        <p part="summary">${f.units(r.units)} ${r.units === 1 ? 'unit' : 'units'} exposed${split ? `: ${split}` : ''}</p>
        ${r.multipleExposures > 0
          ? html`<p class="note">${f.units(r.multipleExposures)} ${r.multipleExposures === 1 ? 'unit was' : 'units were'} exposed to more than one variation and
              ${r.multipleExposures === 1 ? 'is' : 'are'} left out of these results.</p>`
          : nothing}
        <p part="analysis" class="note analysis">${reading.note}</p>
      </div>
      ${r.srm?.mismatch ? this.#srmBanner(r, f) : nothing}
      ${this.#switch(difference)}
      <section part="section" aria-labelledby=${dimensions.length ? 'section-all' : nothing}>
        ${dimensions.length ? html`<h3 id="section-all">All units</h3>` : nothing}
        ${r.metrics.map((m, i) => metricView(m, r.control, f, reading, difference, `all-${i}`, ''))}
      </section>
      ${dimensions.map((d, di) => html`
        <section part="section" aria-labelledby=${`section-${di}`}>
          <h3 id=${`section-${di}`}>${d.name}: ${d.value} <span class="muted">(${f.units(d.units)} units)</span></h3>
          ${d.metrics.map((m, i) => metricView(m, r.control, f, reading, difference, `d${di}-${i}`, `${d.name}: ${d.value}`))}
        </section>`)}
    `;
  }

  /** Relative or absolute: two radio buttons, so the arrow keys move between them and a screen reader says which is on. */
  #switch(difference: ResultsDifference): TemplateResult {
    const option = (value: ResultsDifference, label: string) => html`<label>
      <input type="radio" name="difference" .value=${value} .checked=${difference === value}
        @change=${() => (this.difference = value)}><span>${label}</span></label>`;
    return html`<fieldset part="difference" class="switch">
      <legend>Differences</legend>
      <div class="options">${option('relative', 'Relative (%)')}${option('absolute', 'Absolute')}</div>
    </fieldset>`;
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
}
