import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { AdminApi } from './admin-api.js';
import { navigate } from './admin-events.js';
import { adminStyles, factsStyles } from './admin-styles.js';
import { ApiView } from './api-view.js';
import { ctrText, dailyChart, daysOf, formats, measureName, moneyText, rowsTable, type DailyMeasure } from './feed-report-tables.js';
import { feedReportStyles } from './feed-report-styles.js';
import type { FeedReportAnswer, ReportNumbers } from '../wire/feed-report.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-feed-report': SvcAdminFeedReport;
  }
}

const DAY_MS = 86_400_000;
const DAY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
/** Without a range in the address: this many UTC days, up to today. */
export const DEFAULT_RANGE_DAYS = 30;

/** The range a page shows: the address's days, else the last DEFAULT_RANGE_DAYS UTC days up to today (both included). */
export function reportRange(from: string | undefined, to: string | undefined, now = Date.now()): { from: string; to: string } {
  const end = to && DAY.test(to) ? to : new Date(now).toISOString().slice(0, 10);
  const start = from && DAY.test(from) ? from : new Date(Date.parse(end) - (DEFAULT_RANGE_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  return { from: start, to: end };
}

const nothingHappened = (t: ReportNumbers): boolean => !t.impressions && !t.clicks && !t.carts && !t.orders;

/**
 * `<svc-admin-feed-report feed="1" from="2026-11-01" to="2026-11-30">`: what a recommendation feed did over a range of
 * UTC days (default the last 30), from the feed report (`GET …/feeds/{id}/report`, docs/recommendations-report.md):
 * its impressions, clicks, click-through rate with its 95 % interval, the carts, orders and revenue credited to its
 * clicks, where the prices came from; a bar chart of clicks or revenue per day with the table of its numbers, and a
 * table by card position. Show moves the page's address to the range chosen (`svc-admin:navigate`); Download CSV is
 * the same report by day as a file.
 *
 * @tagname svc-admin-feed-report
 * @summary The console's report of one recommendation feed.
 *
 * @attr status - Reflected, read-only: `loading`, `ready`, `empty` (nothing in the range) or `error`.
 *
 * @fires svc-admin:navigate - Show (the same page for another range) or Back to feeds.
 */
export class SvcAdminFeedReport extends ApiView {
  static override styles = [adminStyles, factsStyles, feedReportStyles];

  static override properties = {
    feed: { type: Number },
    from: {},
    to: {},
    byDay: { state: true },
    byPosition: { state: true },
    measure: { state: true },
    rangeError: { state: true },
  };

  declare feed: number;
  /** The first day asked for (`YYYY-MM-DD`); undefined: DEFAULT_RANGE_DAYS before `to`. */
  declare from: string | undefined;
  /** The last day asked for, included; undefined: today (UTC). */
  declare to: string | undefined;
  /** The report with its rows by day (its totals are the page's facts). */
  declare byDay: FeedReportAnswer | undefined;
  declare byPosition: FeedReportAnswer | undefined;
  /** What the daily chart shows. */
  declare measure: DailyMeasure;
  /** Why the range typed cannot be shown. */
  declare rangeError: string;
  #f = formats(document.documentElement.lang || undefined);

  constructor() {
    super();
    this.feed = 0;
    this.measure = 'clicks';
    this.rangeError = '';
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    if ((changed.has('feed') || changed.has('from') || changed.has('to')) && !changed.has('api')) void this.reload();
  }

  /** The range shown: the days asked for, or the default. */
  get range(): { from: string; to: string } {
    return reportRange(this.from, this.to);
  }

  protected override async load(api: AdminApi, signal: AbortSignal): Promise<void> {
    this.status = 'loading';
    this.rangeError = '';
    const range = this.range;
    const [byDay, byPosition] = await Promise.all([
      api.feedReport(this.feed, { ...range, by: 'day' }, signal),
      api.feedReport(this.feed, { ...range, by: 'position' }, signal),
    ]);
    if (signal.aborted) return;
    this.byDay = byDay;
    this.byPosition = byPosition;
    // A currency the chart showed that this range has not: back to clicks.
    if (this.measure !== 'clicks' && !(this.measure.slice('revenue:'.length) in byDay.totals.revenue)) this.measure = 'clicks';
    this.error = undefined;
    this.status = nothingHappened(byDay.totals) ? 'empty' : 'ready';
  }

  override render() {
    const range = this.range;
    const csv = this.api?.feedReportCsv(this.feed, { ...range, by: 'day' });
    return html`
      <div class="toolbar">
        <h1 tabindex="-1" data-heading>Feed ${this.feed} report</h1>
        <div class="buttons">
          <button type="button" @click=${() => void this.reload()}>Refresh</button>
          ${csv ? html`<a class="button" href=${csv} download=${`feed-${this.feed}-report.csv`}>Download CSV</a>` : nothing}
          <button type="button" @click=${() => navigate(this, { name: 'feeds' })}>Back to feeds</button>
        </div>
      </div>
      <form class="range" @submit=${this.#show} novalidate>
        <div class="field"><label for="from">From</label>
          <input id="from" name="from" type="date" required .value=${range.from} aria-describedby="range-hint range-error"
            aria-invalid=${this.rangeError ? 'true' : 'false'}></div>
        <div class="field"><label for="to">To</label>
          <input id="to" name="to" type="date" required .value=${range.to} aria-describedby="range-hint range-error"
            aria-invalid=${this.rangeError ? 'true' : 'false'}></div>
        <button type="submit">Show</button>
        <p id="range-hint" class="hint">UTC days, both included.</p>
        <p id="range-error" class="field-error" role="alert">${this.rangeError}</p>
      </form>
      ${this.#body()}
    `;
  }

  #show = (e: SubmitEvent): void => {
    e.preventDefault();
    const data = new FormData(e.target as HTMLFormElement);
    const from = String(data.get('from') ?? '');
    const to = String(data.get('to') ?? '');
    if (!DAY.test(from) || !DAY.test(to)) {
      this.rangeError = 'Choose both days.';
      return;
    }
    if (from > to) {
      this.rangeError = 'The first day must not be after the last one.';
      return;
    }
    if ((Date.parse(to) - Date.parse(from)) / DAY_MS >= 366) {
      this.rangeError = 'A report covers at most 366 days.';
      return;
    }
    this.rangeError = '';
    navigate(this, { name: 'feed-report', feed: this.feed, from, to });
  };

  #body(): TemplateResult {
    if (this.status === 'loading') {
      return html`<div class="state" role="status"><div class="spinner" aria-hidden="true"></div><p>Loading the report…</p></div>`;
    }
    if (this.status === 'error' || !this.byDay) {
      return html`<div class="alert error" role="alert">
        <strong>The report could not be loaded</strong>${this.error?.message ?? ''}
        <div class="buttons"><button type="button" @click=${() => void this.reload()}>Try again</button></div>
      </div>`;
    }
    const answer = this.byDay;
    return html`
      ${this.#facts(answer)}
      ${this.status === 'empty'
        ? html`<div class="state empty"><p>No impressions in this range.</p></div>`
        : html`${this.#daily(answer)}${this.#positions()}`}
    `;
  }

  #facts(a: FeedReportAnswer): TemplateResult {
    const t = a.totals;
    const f = this.#f;
    const s = t.revenueSources;
    const last = new Date(Date.parse(a.to) - 1).toISOString().slice(0, 10);
    const fact = (term: string, value: string, key: string) => html`<div data-fact=${key}><dt>${term}</dt><dd>${value}</dd></div>`;
    return html`<dl class="facts" aria-label="The feed's totals">
      ${fact('Range', `${a.from.slice(0, 10)} to ${last}`, 'range')}
      ${fact('Impressions', f.count(t.impressions), 'impressions')}
      ${fact('Clicks', f.count(t.clicks), 'clicks')}
      ${fact('Click-through rate (95% interval)', ctrText(t, f), 'ctr')}
      ${fact('Carts', f.count(t.carts), 'carts')}
      ${fact('Orders', f.count(t.orders), 'orders')}
      ${fact('Attributed revenue', moneyText(t.revenue, f, 'none'), 'revenue')}
      ${fact('Revenue per 1,000 impressions', moneyText(t.revenuePer1000, f), 'per1000')}
      ${fact('Attribution window', `${f.count(a.attributionHours)} hours after a click`, 'window')}
      ${fact('Prices of credited order lines', `${f.count(s.event)} from events · ${f.count(s.catalog)} from the catalog · ${f.count(s.unpriced)} unpriced`, 'sources')}
    </dl>`;
  }

  #daily(a: FeedReportAnswer): TemplateResult {
    const measures: DailyMeasure[] = ['clicks', ...Object.keys(a.totals.revenue).sort().map((c) => `revenue:${c}` as const)];
    const rows = a.rows ?? [];
    return html`<section aria-labelledby="daily-heading">
      <div class="section-head">
        <h2 id="daily-heading">Per day</h2>
        ${measures.length > 1
          ? html`<div class="measure"><label for="measure">Bars show</label>
              <select id="measure" @change=${(e: Event) => (this.measure = (e.target as HTMLSelectElement).value as DailyMeasure)}>
                ${measures.map((m) => html`<option value=${m} ?selected=${m === this.measure}>${measureName(m)}</option>`)}
              </select></div>`
          : nothing}
      </div>
      ${dailyChart(daysOf(a.from, a.to), rows, this.measure, this.#f)}
      <details>
        <summary>The numbers per day</summary>
        ${rowsTable('day-caption', 'The feed\'s numbers per day (days without an impression, click or order are left out)', 'Day', rows, (r) => r.day ?? '', this.#f)}
      </details>
    </section>`;
  }

  #positions(): TemplateResult {
    const rows = this.byPosition?.rows ?? [];
    return html`<section aria-labelledby="position-heading">
      <div class="section-head"><h2 id="position-heading">By position</h2></div>
      <p class="hint">A card's place in the answer the service recorded: 1 is the first.</p>
      ${rowsTable('position-caption', 'The feed\'s numbers by card position', 'Position', rows, (r) => String(r.position ?? ''), this.#f)}
    </section>`;
  }
}
