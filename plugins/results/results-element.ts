import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { fetchResults, isError, type ResultsAnswer, type ResultsError, type ResultsQuery } from './results-answer.js';
import { resultsControls } from './results-controls.js';
import { csvFileName, downloadCsv, resultsCsv } from './results-csv.js';
import type { ResultsDifference } from './results-effect.js';
import { localeOf, resultsFormat, type ResultsFormat } from './results-format.js';
import { resultsHeader, srmBanner } from './results-header.js';
import { phaseList, phasesOf } from './results-phases.js';
import { readingOf } from './results-reading.js';
import { guardrailBanner, primaryGoal } from './results-roles.js';
import { resultsStyles } from './results-styles.js';
import { resultsSections } from './results-sections.js';

export type ResultsState = 'loading' | 'ready' | 'empty' | 'error';
export type { ResultsDifference };

/** What a reader changed inside the element, for a host page that keeps its URL in step (`svc:results-view`). */
export interface ResultsView {
  /** The phase shown (the one asked for, else the current one), or `all`: every phase, stratified. */
  phase: number | 'all';
  /** The dimension broken down by; empty: none. */
  dimension: string;
  /** The `metrics` attribute, when it narrows the metrics shown (comma-separated names). */
  metric?: string;
}

declare global {
  interface HTMLElementTagNameMap {
    'svc-results': SvcResults;
  }
  interface GlobalEventHandlersEventMap {
    'svc:results': CustomEvent<ResultsAnswer>;
    'svc:results-error': CustomEvent<ResultsError>;
    'svc:results-view': CustomEvent<ResultsView>;
  }
  interface WindowEventMap {
    'svc:results': CustomEvent<ResultsAnswer>;
    'svc:results-error': CustomEvent<ResultsError>;
    'svc:results-view': CustomEvent<ResultsView>;
  }
}

/** The properties a request is made of: a change of any of them fetches again. */
const QUERY_KEYS = ['experience', 'apiKey', 'session', 'organization', 'project', 'api', 'metrics', 'dimension', 'phase', 'series'] as const;

/**
 * `<svc-results organization="acme" project="shop" experience="hero-banner">` shows an experiment's results, for
 * admin pages: per metric a table (units, mean, the uplift or the absolute difference with its interval, p-value,
 * the corrected p-value when the experiment asks for a correction, significance in words; chance to win and risk only
 * where a Bayesian test decides the experiment) and a chart of the intervals against zero; with `series="day"`, a graph of each challenger's cumulative effect by day.
 * The header names the phase shown and its weights; with more than one phase, a list of them and a select pick
 * another. A metric the experiment names is labelled with its role (primary goal, goal, secondary, guardrail), and a
 * banner says which variation harms a guardrail. A note says which intervals they are (fixed-horizon or sequential,
 * at what level; sequential ones with how many times as wide as fixed-horizon ones they are at the answer's units), and a banner warns when the units' split does not match the weights (sample ratio mismatch).
 * Controls switch between relative and absolute differences, break the results down by a dimension (a section per
 * value follows the overall one) and download the results as CSV. The server key is the `apiKey` property, never an
 * attribute: a key in markup would leak with the page. Server strings are rendered as text, never as HTML; numbers
 * are written in the language of the closest `lang`, else the browser's; dates are UTC days, as the service counts.
 *
 * @tagname svc-results
 * @summary An experiment's results for admin pages: a table, an interval chart and a date graph per metric.
 *
 * @example
 * <svc-results organization="acme" project="shop" experience="hero-banner" series="day"></svc-results>
 * <script type="module">document.querySelector('svc-results').apiKey = await keyFromYourBackend();</script>
 *
 * @attr experience - The experiment's name.
 * @attr organization - The organization of the project.
 * @attr project - The project the experiment runs in.
 * @attr api - The service's base URL, ending in `/v1`; default `location.origin + '/v1'`.
 * @attr metrics - Comma-separated metric names; default: the experiment's (or every metric of the project).
 * @attr dimension - A dimension to break the results down by: `device`, `browser`, `visitor` (new or returning),
 *   `utm_source`, `utm_medium`, `attribute:<key>`. The "Break down by" select sets it; not reflected.
 * @attr phase - The phase to show, a number from 1, or `all` (every phase, stratified by phase); empty (default): the current one. The phase select sets it; not
 *   reflected.
 * @attr series - `day`: a graph per metric of the results as they stood at the end of each day; empty (default): none.
 * @attr difference - `relative` (default: the uplift, a percent of the control's mean) or `absolute` (the difference of
 *   the means in the metric's units: percentage points for a conversion rate). Reflected: the switch sets it.
 * @attr status - Reflected, read-only: `loading`, `ready`, `empty` (no unit exposed yet) or `error`.
 *
 * @fires svc:results - An answer arrived (state `ready` or `empty`); `detail` is the service's answer.
 * @fires svc:results-error - No answer (state `error`); `detail` is `{status, code, message}`.
 * @fires svc:results-view - The reader picked a phase or a dimension in the element (it fetches again); `detail` is
 *   `{phase, dimension, metric?}`, for a host page that keeps its URL in step.
 *
 * @csspart header - The experiment's name, its units and notes above the results.
 * @csspart title - The experiment's name.
 * @csspart summary - The line of totals under the name.
 * @csspart phase - The header's line naming the phase shown, since when, and its weights.
 * @csspart analysis - The note that says which intervals and p-values the results carry.
 * @csspart phases - The list of the experiment's phases (when it has more than one).
 * @csspart controls - The row of controls: phase, breakdown, differences, CSV download.
 * @csspart phase-select - The phase select with its label.
 * @csspart breakdown - The "Break down by" select with its label.
 * @csspart difference - The relative/absolute switch (a fieldset of two radio buttons).
 * @csspart csv - The "Download CSV" button.
 * @csspart banner - The sample ratio mismatch warning, and the guardrail warning.
 * @csspart guardrail - The warning that a variation harms a guardrail (also part `banner`).
 * @csspart section - The overall results, and each dimension value's.
 * @csspart metric - One metric: its table and its charts.
 * @csspart role - A metric's role label in its caption: primary goal, goal, secondary, guardrail.
 * @csspart table-scroll - The table's container, which scrolls horizontally on narrow screens.
 * @csspart table - A metric's table.
 * @csspart harm - The mark on a variation's row that it harms the guardrail.
 * @csspart cut - The note under a table whose relative intervals are cut at −100%.
 * @csspart cuped - The note under a table that gives CUPED's θ and adjusted means.
 * @csspart chart - A metric's interval chart (a figure with its caption and SVG).
 * @csspart series - A metric's date graph (a figure with its caption, SVG, legend and hidden table of the points).
 * @csspart state - The message shown while loading, when empty and on error; also `loading`, `empty`, `error`.
 *
 * @cssprop --svc-results-font - Font shorthand of the element.
 * @cssprop --svc-results-color - Text colour.
 * @cssprop --svc-results-muted - Secondary text colour (notes, axis labels).
 * @cssprop --svc-results-positive - Significantly better than the control (for a lower-is-better metric: lower).
 * @cssprop --svc-results-negative - Significantly worse than the control; a harmed guardrail.
 * @cssprop --svc-results-neutral - Not significant.
 * @cssprop --svc-results-zero - The charts' zero line.
 * @cssprop --svc-results-grid - The charts' grid lines.
 * @cssprop --svc-results-border - Borders of the table, the controls and state messages.
 * @cssprop --svc-results-header-background - Background of the table's header row.
 * @cssprop --svc-results-background - The page background, behind the sticky variation column and the chart's labels.
 * @cssprop --svc-results-radius - Corner radius.
 * @cssprop --svc-results-accent - The loading indicator.
 * @cssprop --svc-results-focus - Focus outline of the scrollable table, the switch, the selects and the button.
 * @cssprop --svc-results-selected-background - The switch's selected option.
 * @cssprop --svc-results-selected-color - The text of the switch's selected option.
 * @cssprop --svc-results-warning-background - Background of the warning banners.
 * @cssprop --svc-results-warning-border - Border of the warning banners.
 * @cssprop --svc-results-warning-color - Text colour of the warning banners.
 * @cssprop --svc-results-min-height - Height of the loading, empty and error messages.
 * @cssprop --svc-results-series-1 - The date graph's first challenger (line, band and marker).
 * @cssprop --svc-results-series-2 - The second challenger.
 * @cssprop --svc-results-series-3 - The third challenger.
 * @cssprop --svc-results-series-4 - The fourth challenger (a fifth takes the first colour with the first marker).
 */
export class SvcResults extends LitElement {
  static override styles = resultsStyles;
  static override properties = {
    experience: {},
    // Property only, never an attribute, never reflected: a key in markup leaks with the page's HTML.
    apiKey: { attribute: false },
    session: { type: Boolean },
    organization: {},
    project: {},
    api: {},
    metrics: {},
    dimension: {},
    phase: {},
    series: {},
    difference: { reflect: true },
    status: { reflect: true },
    results: { attribute: false },
    error: { attribute: false },
  };

  declare experience: string;
  /** The project's server key (`?apiKey=`). Set it from script; it is never read from nor written to an attribute. */
  declare apiKey: string;
  /**
   * Reads the results with the page's own sign-in (the service's console session cookie, same origin) instead of a key:
   * what the admin console does.
   */
  declare session: boolean;
  declare organization: string;
  declare project: string;
  /** Base URL of the service, ending in `/v1`. */
  declare api: string;
  /** Comma-separated metric names; empty: the experiment's (every metric of the project when it names none). */
  declare metrics: string;
  /** Break the results down by this dimension (e.g. `device`, `attribute:plan`); empty: overall only. */
  declare dimension: string;
  /**
   * The phase to show (`'2'`); empty: the current one. The phase select sets it (and fires `svc:results-view`).
   * @example document.querySelector('svc-results').phase = '1';
   */
  declare phase: string;
  /** `day`: the answer carries the results at the end of each day, drawn per metric; empty: no date graph. */
  declare series: string;
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
  /** The last answer, with the experiment it is of: its controls stay while another view of it loads or fails. */
  #last: { of: string; answer: ResultsAnswer } | undefined;

  constructor() {
    super();
    this.experience = '';
    this.apiKey = '';
    this.session = false;
    this.organization = '';
    this.project = '';
    this.api = `${location.origin}/v1`;
    this.metrics = '';
    this.dimension = '';
    this.phase = '';
    this.series = '';
    this.difference = 'relative';
    this.status = 'loading';
  }

  /**
   * Fetches the results again. Without experience, organization, project and apiKey (or `session`) the element stays
   * `loading` until they are set.
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
      this.#last = { of: this.#experiment(), answer };
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
    if (!experience || !(apiKey || this.session) || !organization || !project) return undefined;
    return {
      api: this.api || `${location.origin}/v1`,
      organization,
      project,
      experience,
      apiKey,
      metrics: (this.metrics ?? '').split(',').map((m) => m.trim()).filter(Boolean),
      dimension: (this.dimension ?? '').trim(),
      phase: String(this.phase ?? '').trim(),
      series: String(this.series ?? '').trim() === 'day' ? 'day' : '',
    };
  }

  /** Which experiment the element shows, whatever the view of it (phase, dimension, metrics). */
  #experiment(): string {
    return JSON.stringify([this.api, this.organization, this.project, this.experience]);
  }

  /**
   * The results as CSV: one row per metric × variation of the overall results (section `all`), of each dimension
   * value's (`dimension`) and of each day of the series (`series`), with the answer's exact numbers; the header only
   * without results. The "Download CSV" button saves it as `<experience>-phase<N>.csv`.
   * @example const csv = document.querySelector('svc-results').toCsv();
   */
  toCsv(): string {
    return resultsCsv(this.results);
  }

  /** The formatters of the element's language, made again only when the language changed. */
  #formatter(): ResultsFormat {
    const locale = localeOf(this);
    if (this.#format?.locale !== locale || !this.#format) this.#format = resultsFormat(locale);
    return this.#format;
  }

  // Every state fills the same slots of one template (header, phases, banners, controls, body): the controls keep
  // their elements, and the focus, while the answer to a new view loads.
  override render() {
    const { status, results } = this;
    const f = this.#formatter();
    const shown = status === 'ready' || status === 'empty' ? results : undefined;
    const ready = status === 'ready' ? results : undefined;
    const reading = ready ? readingOf(ready.analysis, f) : undefined;
    const difference = this.difference === 'absolute' ? 'absolute' : 'relative';
    return html`${ready && reading ? resultsHeader(ready, f, reading) : nothing}${shown ? phaseList(shown, f) : nothing}${
      ready ? srmBanner(ready, f) : nothing}${ready ? guardrailBanner(ready, f) : nothing}${this.#controls()}${ready && reading
      ? resultsSections(ready, { control: ready.control, f, reading, difference, primary: primaryGoal(ready.metrics), analysis: ready.analysis })
      : this.#state(f)}`;
  }

  #state(f: ResultsFormat): TemplateResult {
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
      const phase = phasesOf(results).length > 1 ? ` in phase ${results!.phase}` : '';
      // Exposed units that all saw more than one variation (a person identified across devices): none remains.
      return html`<div part="state empty" role="status">
        <p>${left > 0
          ? html`${f.units(left)} ${left === 1 ? 'unit was' : 'units were'} exposed to <strong>${name}</strong>${phase}
            but saw more than one variation, so ${left === 1 ? 'it is' : 'they are'} left out and there are no results.`
          : html`No one has been exposed to <strong>${name}</strong>${phase} yet, so there are no results.`}</p>
      </div>`;
    }
    return html`<div part="state loading" role="status">
      <div class="spinner" aria-hidden="true"></div>
      <p>Loading results…</p>
    </div>`;
  }

  /**
   * The controls, from the answer shown, else from the last answer of the same experiment (while another view of it
   * loads, or after it failed: the reader can pick another phase or dimension, or go back).
   */
  #controls(): TemplateResult | typeof nothing {
    const { status } = this;
    const last = this.#last?.of === this.#experiment() ? this.#last.answer : undefined;
    const answer = status === 'ready' || status === 'empty' ? this.results : last;
    if (!answer) return nothing;
    return resultsControls({
      phases: phasesOf(answer),
      phase: this.#phaseShown(answer),
      dimension: status === 'empty' ? undefined : (this.dimension ?? '').trim(),
      difference: status === 'ready' ? (this.difference === 'absolute' ? 'absolute' : 'relative') : undefined,
      csv: status === 'ready',
    }, {
      phase: (phase) => this.#pick({ phase: String(phase) }),
      dimension: (dimension) => this.#pick({ dimension }),
      difference: (difference) => (this.difference = difference),
      csv: () => this.#download(),
    });
  }

  /** The phase asked for, else the one `answer` is of (the current one when none was asked for). */
  #phaseShown(answer: ResultsAnswer | undefined): number | 'all' {
    if (String(this.phase ?? '').trim() === 'all') return 'all';
    const asked = Number(String(this.phase ?? '').trim());
    if (Number.isInteger(asked) && asked > 0) return asked;
    return answer?.phase ?? phasesOf(answer).at(-1)?.phase ?? 1;
  }

  /** A view the reader picked: set (which fetches again), then told to the page. */
  #pick(view: { phase?: string; dimension?: string }): void {
    if (view.phase !== undefined) this.phase = view.phase;
    if (view.dimension !== undefined) this.dimension = view.dimension;
    const metric = (this.metrics ?? '').trim();
    const detail: ResultsView = {
      phase: this.#phaseShown(this.results ?? this.#last?.answer),
      dimension: (this.dimension ?? '').trim(),
      ...(metric ? { metric } : {}),
    };
    this.dispatchEvent(new CustomEvent('svc:results-view', { detail, bubbles: true, composed: true }));
  }

  #download(): void {
    if (!this.results) return;
    // Through the shadow root: the link is never part of the page.
    downloadCsv(this.renderRoot as ShadowRoot, this.toCsv(), csvFileName(this.results));
  }
}
