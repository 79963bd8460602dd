import type { ExperienceConfig } from '../config/config-types.js';
import { op, type SqlProgram } from '../storage/sql-program.js';
import type { Storage } from '../storage/storage.js';
import type { ResultsAnswer, VariationStats } from '../../wire/results-answer.js';
import { verdictOf } from '../../wire/significance.js';
import { consolePath, emitWebhookEvent, type WebhookEvent } from './webhook-outbox.js';

// What a look at a running experiment's current phase tells the project's webhooks: a sample-ratio mismatch, and each
// goal metric the first time a challenger is significant on it. The guardrail watch looks (every node, on its rhythm)
// and sends what it found here; a key per phase (and metric) lets one message through, whichever node finds it first.

/** The events a look at results may find. */
export type ResultsAlertType = 'experiment.srm_detected' | 'experiment.significant';

const ALERT_TYPES: readonly string[] = ['experiment.srm_detected', 'experiment.significant'] satisfies ResultsAlertType[];

/**
 * The results alerts each project's enabled endpoints asked for, by project: a project that wants none is not looked at
 * for them (nothing is computed for nobody).
 */
export function* wantedAlerts(): SqlProgram<Map<string, Set<ResultsAlertType>>> {
  const { rows } = yield op('SELECT project, events FROM webhook_endpoints WHERE enabled = 1');
  const wanted = new Map<string, Set<ResultsAlertType>>();
  for (const row of rows) {
    const types = (JSON.parse(String(row.events)) as string[]).filter((t): t is ResultsAlertType => ALERT_TYPES.includes(t));
    if (types.length === 0) continue;
    const project = String(row.project);
    wanted.set(project, new Set([...(wanted.get(project) ?? []), ...types]));
  }
  return wanted;
}

/**
 * The alerts `report` (the experiment's current phase, computed with its own settings: alpha, sequential or not, the
 * correction across its goals) calls for, among those `wanted`.
 * @example resultsAlerts('acme/shop', hero, report, new Set(['experiment.significant']), Date.now()) // → [{ type: 'experiment.significant', … }]
 */
export function resultsAlerts(
  project: string, experience: ExperienceConfig, report: ResultsAnswer, wanted: ReadonlySet<ResultsAlertType>, at: number,
): WebhookEvent[] {
  const { phase } = report;
  const name = experience.name;
  const path = consolePath(project, `#/experiences/${encodeURIComponent(name)}/results`);
  const events: WebhookEvent[] = [];
  if (wanted.has('experiment.srm_detected') && report.srm.mismatch && report.srm.pValue !== null) {
    events.push({
      project, type: 'experiment.srm_detected', at, path, dedupe: `srm:${name}:${phase}`,
      data: {
        experience: name, phase, pValue: report.srm.pValue,
        units: Object.fromEntries(report.variations.map((v) => [v.name, v.units])),
        weights: Object.fromEntries(report.variations.map((v) => [v.name, v.weight])),
      },
    });
  }
  if (!wanted.has('experiment.significant')) return events;
  for (const goal of experience.goals ?? []) {
    const metric = report.metrics.find((m) => m.name === goal && m.role === 'goal');
    const found = metric === undefined ? undefined : mostSignificant(metric.variations.slice(1));
    if (metric === undefined || found === undefined) continue;
    const { variation, uplift, ci } = found;
    events.push({
      project, type: 'experiment.significant', at, path, dedupe: `significant:${name}:${phase}:${goal}`,
      data: {
        experience: name, phase, metric: goal, variation: variation.name, baseline: report.control,
        direction: verdictOf(variation, metric.inverse) === 'negative' ? 'worse' : 'better', uplift, ci,
        pValue: variation.pValue ?? null,
        ...(variation.pValueAdjusted !== undefined ? { pValueAdjusted: variation.pValueAdjusted } : {}),
        alpha: report.analysis.alpha, sequential: report.analysis.interval === 'sequential',
      },
    });
  }
  return events;
}

/** The challenger significant on the relative difference with the smallest p-value it was decided on; none: undefined. */
function mostSignificant(challengers: readonly VariationStats[]): { variation: VariationStats; uplift: number; ci: [number, number] } | undefined {
  const decisive = (v: VariationStats): number => v.pValueAdjusted ?? v.pValue ?? 1;
  const [variation] = challengers.filter((v) => v.significant === true && typeof v.uplift === 'number' && v.ci != null)
    .sort((a, b) => decisive(a) - decisive(b));
  return variation === undefined ? undefined : { variation, uplift: variation.uplift as number, ci: variation.ci as [number, number] };
}

/** Queues the alerts found, each at most once per key (a look that finds them again queues nothing). */
export async function emitResultsAlerts(storage: Storage, events: readonly WebhookEvent[]): Promise<void> {
  if (events.length === 0) return;
  await storage.transaction(function* () {
    for (const event of events) yield* emitWebhookEvent(event);
  });
}
