// The one request for an experiment's results (the answer's shape is wire/results-answer.ts).

import type { MetricResult, ResultsAnswer } from '../../src/plugin-api.js';

export type {
  AbsoluteDifference, CupedFigures, DimensionResult, MetricCap, MetricResult, MetricType, PValueCorrection, ResultsAnalysis,
  ResultsAnswer, VariationStats, VariationUnits,
} from '../../src/plugin-api.js';
// The shapes src/plugin-api.ts does not re-export yet, from the contract itself (types only: nothing is bundled).
export type { GuardrailHarm, MetricRole, ResultsPhase, SequentialReach, SeriesPoint } from '../../wire/results-answer.js';

/** Why there are no results: the service's `{error:{code, message}}`, or what went wrong on the way. */
export interface ResultsError {
  /** HTTP status; 0 when the service could not be reached or answered something else than JSON. */
  status: number;
  code: string;
  message: string;
}

export interface ResultsQuery {
  /** Base URL ending in `/v1`. */
  api: string;
  organization: string;
  project: string;
  experience: string;
  /** The server key; empty: the page's own session cookie (same origin) carries the access. */
  apiKey: string;
  /** Metric names; empty: every metric of the project. */
  metrics: string[];
  dimension: string;
  /** `?phase=N`, as given; empty: the current (last) phase. */
  phase: string;
  /** `day`: the answer carries the results as they stood at the end of each day; empty: none. */
  series: '' | 'day';
}

/**
 * The endpoint's URL, without the key (it travels in the Authorization header, out of URLs, history and access
 * logs); every path segment and query value is encoded, so no name can reach another route.
 */
export function resultsUrl(q: ResultsQuery): string {
  const path = [q.organization, 'projects', q.project, 'experiences', q.experience, 'results'].map(encodeURIComponent).join('/');
  const params = new URLSearchParams();
  if (q.metrics.length) params.set('metrics', q.metrics.join(','));
  if (q.dimension) params.set('dimension', q.dimension);
  if (q.phase) params.set('phase', q.phase);
  if (q.series) params.set('series', q.series);
  const query = params.toString();
  return `${q.api.replace(/\/+$/, '')}/${path}${query ? `?${query}` : ''}`;
}

/**
 * Fetches the results; never throws: a failure is answered as a `ResultsError` (an abort too, which the caller
 * ignores as it asked for it).
 */
export async function fetchResults(q: ResultsQuery, signal: AbortSignal): Promise<ResultsAnswer | ResultsError> {
  let response: Response;
  try {
    // no-store: results change with every exposure.
    response = await fetch(resultsUrl(q), {
      signal, cache: 'no-store', credentials: 'same-origin',
      headers: { Accept: 'application/json', ...(q.apiKey ? { Authorization: `Bearer ${q.apiKey}` } : {}) },
    });
  } catch {
    return { status: 0, code: 'network_error', message: 'The results service could not be reached.' };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return { status: response.status, code: 'invalid_answer', message: `The results service answered ${response.status} without JSON.` };
  }
  if (!response.ok) {
    const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    return {
      status: response.status,
      code: typeof error?.code === 'string' ? error.code : 'http_error',
      message: typeof error?.message === 'string' ? error.message : `The results service answered ${response.status}.`,
    };
  }
  return isAnswer(body)
    ? body
    : { status: response.status, code: 'invalid_answer', message: 'The results service answered something that is not a results answer.' };
}

/**
 * The shape rendering relies on (arrays where it maps, intervals of two numbers); other fields may be missing or
 * odd without breaking the element: they show as "—". An answer that fails this is the `error` state, not an
 * exception in the page.
 */
function isAnswer(body: unknown): body is ResultsAnswer {
  const a = body as Partial<ResultsAnswer> | null;
  return typeof a === 'object' && a !== null && typeof a.units === 'number' && Array.isArray(a.variations) && metricsOk(a.metrics)
    && (a.dimensions === undefined || (Array.isArray(a.dimensions) && a.dimensions.every((d) => metricsOk(d?.metrics))))
    && (a.series === undefined || (Array.isArray(a.series) && a.series.every((p) => typeof p?.date === 'string' && metricsOk(p.metrics))));
}

function metricsOk(metrics: unknown): boolean {
  return Array.isArray(metrics) && metrics.every((m: Partial<MetricResult> | null) => Array.isArray(m?.variations)
    && m.variations.every((v) => v !== null && typeof v === 'object' && intervalOk(v.ci)
      && (v.absolute === undefined || (typeof v.absolute === 'object' && v.absolute !== null && intervalOk(v.absolute.ci)))));
}

/** An interval the chart can draw, or none. */
function intervalOk(ci: unknown): boolean {
  return ci === undefined || ci === null || (Array.isArray(ci) && ci.length === 2 && ci.every(Number.isFinite));
}

export function isError(value: ResultsAnswer | ResultsError): value is ResultsError {
  return 'code' in value && 'message' in value && !('metrics' in value);
}
