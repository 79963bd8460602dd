import { FeedReportAnswer as FeedReportSchema, FeedReportQuery } from '../../wire/api/feed-schema.js';
import { defusedCsvText, quotedCsvCell } from '../../wire/csv-cell.js';
import { DEFAULT_ATTRIBUTION_HOURS, type FeedConfig } from '../config/config-types.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import type { ProjectParams } from '../http/project-endpoint.js';
import type { ConfigStore } from '../config/config-store.js';
import type { Storage } from '../storage/storage.js';
import type { FeedReportAnswer, ReportNumbers } from '../../wire/feed-report.js';
import { FEED_REPORT } from './feed-report-program.js';
import { feedOfPath } from './feed-service.js';
import { parseFeedReportQuery } from './feed-report-query.js';

export const FEED_REPORT_PATH = '/v1/:org/projects/:project/feeds/:id/report';

/** What the report route uses of the service. */
export interface FeedReportRouteDeps {
  config: ConfigStore;
  storage: Storage;
  now: () => number;
  /** The applier that keeps the report's counts (feed_card_counts) up with the inbox; absent: nothing to wait for. */
  models?: { settle(options: { maxWaitMs?: number }): Promise<void> };
}

/**
 * How long a report waits for the card events this node stored to be counted: under an ingestion overload it answers
 * from counts a moment old rather than late.
 */
const SETTLE_MS = 5000;

const cell = (value: unknown): string => quotedCsvCell(defusedCsvText(value === null || value === undefined ? '' : String(value)));

/**
 * The report as CSV (RFC 4180, CRLF): a header row, then one line per row (with `by`) or one of the totals; the
 * interval as `ctrLow`/`ctrHigh`, revenue as one column per currency (`revenue_EUR`, `revenuePer1000_EUR`), and the
 * counts of order lines by where their price came from.
 */
export function reportCsv(answer: FeedReportAnswer, by: string | undefined): string {
  const lines = (answer.rows ?? [answer.totals]) as (ReportNumbers & Record<string, unknown>)[];
  const currencies = [...new Set(lines.flatMap((l) => Object.keys(l.revenue)))].sort();
  const header = [...(by ? [by] : []), 'impressions', 'clicks', 'ctr', 'ctrLow', 'ctrHigh', 'carts', 'orders',
    ...currencies.flatMap((c) => [`revenue_${c}`, `revenuePer1000_${c}`]), 'pricedByEvent', 'pricedByCatalog', 'unpriced'];
  const out = [header.map(cell).join(',')];
  for (const l of lines) {
    out.push([
      ...(by ? [l[by]] : []), l.impressions, l.clicks, l.ctr, l.ctrInterval?.[0], l.ctrInterval?.[1], l.carts, l.orders,
      ...currencies.flatMap((c) => [l.revenue[c] ?? 0, l.revenuePer1000[c]]),
      l.revenueSources.event, l.revenueSources.catalog, l.revenueSources.unpriced,
    ].map(cell).join(','));
  }
  return `${out.join('\r\n')}\r\n`;
}

/**
 * `GET /v1/{org}/projects/{project}/feeds/{id}/report?from=&to=[&by=position|day|strategy][&format=csv]
 * [&attributionHours=]`: a feed's impressions, clicks, click-through rate (with its Wilson interval), and the carts,
 * orders and order revenue credited to its clicks (feed-attribution.ts). Read as the management API is (a person's
 * session or an admin key, viewer and up), once the card events this node stored are counted. Order of checks: credentials, query (400 `invalid_request`), feed (404
 * `feed_not_found`); nothing is written.
 */
export function feedReportRoute(ctx: FeedReportRouteDeps): ApiRoute {
  return apiRoute<{ Params: ProjectParams & { id: string }; Querystring: Record<string, unknown> }>({
    method: 'GET',
    path: FEED_REPORT_PATH,
    tag: 'Recommendations',
    summary: 'A feed\'s report',
    description: 'Impressions, clicks, click-through rate (with its Wilson interval), and the carts, orders and revenue credited '
      + 'to its clicks, in all or by position, day or strategy. Nothing is written.',
    access: { kind: 'project', keys: ['adminKey'], role: 'viewer' },
    request: { query: FeedReportQuery, params: { id: { description: 'The feed id.' } } },
    answers: {
      200: {
        description: 'The report.',
        json: FeedReportSchema,
        media: { 'text/csv': 'With `format=csv`: a header row, then one line per row (or the totals), RFC 4180.' },
      },
    },
    errors: ['invalid_request', 'feed_not_found'],
    handler: async (request, reply) => {
      const project = request.auth!.project;
      const query = parseFeedReportQuery(request.query, ctx.now());
      const feed = feedOfPath(project, request.params.id);
      const feeds: readonly FeedConfig[] = project.config.feeds ?? [];
      const attributionHours = query.attributionHours ?? feed.attributionHours ?? DEFAULT_ATTRIBUTION_HOURS;
      await ctx.models?.settle({ maxWaitMs: SETTLE_MS });
      const numbers = await ctx.storage.place(FEED_REPORT, {
        project: project.key, feedId: feed.id, from: query.from, to: query.to, attributionHours,
        ...(query.by !== undefined ? { by: query.by } : {}),
        windows: feeds.map((f): [number, number] => [f.id, f.attributionHours ?? DEFAULT_ATTRIBUTION_HOURS]),
        defaultHours: DEFAULT_ATTRIBUTION_HOURS,
      });
      const answer: FeedReportAnswer = {
        feed: feed.id, from: new Date(query.from).toISOString(), to: new Date(query.to).toISOString(), attributionHours, ...numbers,
      };
      if (query.format === 'json') return answer;
      reply.header('content-disposition', `attachment; filename="feed-${feed.id}-report.csv"`);
      reply.type('text/csv; charset=utf-8');
      return reportCsv(answer, query.by);
    },
  });
}
