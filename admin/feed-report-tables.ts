// What the feed report page draws from the report's numbers (wire/feed-report.ts): the numbers in the reader's
// locale, the bar chart of one number per day, and the tables by day and by position. Pure templates: the page
// element (feed-report-page.ts) loads the answers and holds the state.
import { html, nothing, svg, type TemplateResult } from 'lit';
import { label } from './cell-label.js';
import type { ReportNumbers, ReportRow } from '../wire/feed-report.js';

const DAY_MS = 86_400_000;

/** How the page writes numbers: counts, rates, amounts of money, in one locale. */
export interface Formats {
  count(n: number): string;
  percent(n: number): string;
  money(amount: number, currency: string): string;
}

export function formats(locale?: string): Formats {
  const count = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  const percent = new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const money = new Map<string, Intl.NumberFormat>();
  return {
    count: (n) => count.format(n),
    percent: (n) => percent.format(n),
    money: (amount, currency) => {
      let format = money.get(currency);
      if (!format) {
        try {
          format = new Intl.NumberFormat(locale, { style: 'currency', currency });
        } catch {
          // A code Intl does not know: the amount and the code as the service wrote it.
          format = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
          return `${format.format(amount)} ${currency}`;
        }
        money.set(currency, format);
      }
      return format.format(amount);
    },
  };
}

/** The click-through rate and its 95 % interval: `12.5% (8.1%–18.0%)`; a dash without impressions. */
export function ctrText(n: ReportNumbers, f: Formats): string {
  if (!n.impressions) return '—';
  return n.ctrInterval ? `${f.percent(n.ctr)} (${f.percent(n.ctrInterval[0])}–${f.percent(n.ctrInterval[1])})` : f.percent(n.ctr);
}

/** Amounts per currency, `€39.00 · $12.00`, or what to say when there are none. */
export function moneyText(amounts: Record<string, number | null>, f: Formats, none = '—'): string {
  const parts = Object.entries(amounts).sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([currency, amount]) => (amount === null ? `— ${currency}` : f.money(amount, currency)));
  return parts.length ? parts.join(' · ') : none;
}

/** Every UTC day of the range [from, to) of an answer (ISO times), `2026-11-28`. */
export function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  const end = Date.parse(to);
  for (let t = Date.parse(from.slice(0, 10)); t < end && days.length <= 400; t += DAY_MS) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** One number per day: `clicks`, or the revenue in one currency (`revenue:EUR`). */
export type DailyMeasure = 'clicks' | `revenue:${string}`;

export const measureValue = (row: ReportNumbers | undefined, measure: DailyMeasure): number =>
  !row ? 0 : measure === 'clicks' ? row.clicks : row.revenue[measure.slice('revenue:'.length)] ?? 0;

export function measureName(measure: DailyMeasure): string {
  return measure === 'clicks' ? 'Clicks' : `Revenue (${measure.slice('revenue:'.length)})`;
}

/**
 * A bar chart of `measure` per day, every day of the range (a day without a row is 0). An image to assistive
 * technology, named by its title and described by its total and its highest day; the table by day (below it on the
 * page) holds every number. Axis labels are HTML around the SVG, so they keep their size on any width.
 */
export function dailyChart(days: string[], rows: ReportRow[], measure: DailyMeasure, f: Formats): TemplateResult {
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const values = days.map((day) => measureValue(byDay.get(day), measure));
  const write = (v: number): string => (measure === 'clicks' ? f.count(v) : f.money(v, measure.slice('revenue:'.length)));
  const max = Math.max(0, ...values);
  const total = values.reduce((a, b) => a + b, 0);
  const top = values.indexOf(max);
  const name = measureName(measure);
  const first = days[0] ?? '';
  const last = days.at(-1) ?? '';
  const description = max > 0
    ? `${write(total)} in all from ${first} to ${last}; the highest day is ${days[top]} with ${write(max)}. The table by day lists every day.`
    : `None from ${first} to ${last}.`;
  const width = Math.max(days.length, 1) * 10;
  const bars = values.map((v, i) => {
    const h = max > 0 ? (v / max) * 100 : 0;
    return svg`<rect x=${i * 10 + 1} y=${100 - h} width="8" height=${h}><title>${days[i]}: ${write(v)}</title></rect>`;
  });
  return html`<div class="chart">
    <div class="y-axis" aria-hidden="true"><span>${write(max)}</span><span>${write(0)}</span></div>
    <svg viewBox="0 0 ${width} 100" preserveAspectRatio="none" role="img" aria-labelledby="chart-title chart-desc">
      <title id="chart-title">${name} per day</title>
      <desc id="chart-desc">${description}</desc>
      <line x1="0" y1="100" x2=${width} y2="100" class="baseline"></line>
      ${bars}
    </svg>
    <div class="x-axis" aria-hidden="true"><span>${first}</span><span>${last}</span></div>
  </div>`;
}

/**
 * The report's rows as a table, a card per row on a phone: `key` names the first column (Day, Position) and reads
 * it from a row.
 */
export function rowsTable(id: string, caption: string, key: string, rows: ReportRow[], keyOf: (r: ReportRow) => string, f: Formats): TemplateResult {
  return html`<div class="table-scroll" role="region" aria-labelledby=${id} tabindex="0">
    <table class="cards">
      <caption id=${id} class="sr-only">${caption}</caption>
      <thead><tr>
        <th scope="col">${key}</th>
        <th scope="col" class="num">Impressions</th>
        <th scope="col" class="num">Clicks</th>
        <th scope="col" class="num">Click-through rate (95% interval)</th>
        <th scope="col" class="num">Carts</th>
        <th scope="col" class="num">Orders</th>
        <th scope="col" class="num">Revenue</th>
      </tr></thead>
      <tbody>${rows.map((r) => html`<tr>
        <th scope="row">${keyOf(r)}</th>
        <td class="num">${label('Impressions')}${f.count(r.impressions)}</td>
        <td class="num">${label('Clicks')}${f.count(r.clicks)}</td>
        <td class="num">${label('Click-through')}${ctrText(r, f)}</td>
        <td class="num">${label('Carts')}${f.count(r.carts)}</td>
        <td class="num">${label('Orders')}${f.count(r.orders)}</td>
        <td class="num">${label('Revenue')}${moneyText(r.revenue, f)}</td>
      </tr>`)}</tbody>
    </table>
  </div>${rows.length ? nothing : html`<p class="hint">No rows.</p>`}`;
}
