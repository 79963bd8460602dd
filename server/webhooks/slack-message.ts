import type { AutomaticStop } from '../../wire/automatic-stop.js';
import type { WebhookActor, WebhookDataByType, WebhookPayload } from '../../wire/webhook-events.js';

// What an endpoint of format `slack` receives: Slack's incoming-webhook JSON, a line of text (shown in notifications)
// and blocks (what happened, the numbers, the link), built from the same payload a `standard` endpoint receives.

/** Slack's incoming-webhook message. */
export interface SlackMessage {
  text: string;
  blocks: object[];
}

/** One event in words: the line that says what happened, more lines under it, and the numbers as labelled fields. */
interface Summary {
  line: string;
  details?: string[];
  fields?: [label: string, value: string][];
  by?: WebhookActor;
}

/** Slack's fields section holds at most 10 fields. */
const MAX_FIELDS = 10;

/**
 * The Slack message of one event: `text` is the line a notification shows; the blocks say it again with the details,
 * the numbers as fields, the project and who did it, and a button to the console's page.
 * @example slackMessage(stoppedPayload).text // → 'Experiment hero stopped: bold harmed the guardrail errors (acme/shop)'
 */
export function slackMessage(payload: WebhookPayload): SlackMessage {
  const { data } = payload;
  const summary = summaryOf(payload);
  const where = `${escape(data.organization)}/${escape(data.project)}`;
  const context = summary.by === undefined ? where : `${where} · by ${actorText(summary.by)}`;
  const fields = (summary.fields ?? []).slice(0, MAX_FIELDS).map(([label, value]) => ({ type: 'mrkdwn', text: `*${label}*\n${value}` }));
  return {
    text: `${summary.line} (${where})`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: [`*${summary.line}*`, ...(summary.details ?? [])].join('\n') } },
      ...(fields.length > 0 ? [{ type: 'section', fields }] : []),
      { type: 'context', elements: [{ type: 'mrkdwn', text: context }] },
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in svc' }, url: data.url }] },
    ],
  };
}

/** Slack's mrkdwn reads `&`, `<` and `>` as markup: a name holding them is escaped as Slack asks. */
export function escape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function summaryOf(payload: WebhookPayload): Summary {
  switch (payload.type) {
    case 'experiment.started': return started(payload.data);
    case 'experiment.stopped': return stopped(payload.data);
    case 'experiment.phase_started': return phaseStarted(payload.data);
    case 'experiment.srm_detected': return srmDetected(payload.data);
    case 'experiment.significant': return significant(payload.data);
    case 'bandit.reweighted': return reweighted(payload.data);
    case 'privacy.request_done': return requestDone(payload.data);
    case 'feed.changed': return feedChanged(payload.data);
    case 'webhook.test': return testEvent(payload.data);
  }
}

function started(d: WebhookDataByType['experiment.started']): Summary {
  return {
    line: `Experiment ${escape(d.experience)} ${d.phase > 1 ? 'restarted' : 'started'}`,
    fields: [['Phase', String(d.phase)], ['Weights', weights(d.weights)], ['Traffic', `${d.traffic} %`]],
    by: d.by,
  };
}

function stopped(d: WebhookDataByType['experiment.stopped']): Summary {
  const name = escape(d.experience);
  const phase: [string, string][] = d.phase === null ? [] : [['Phase', String(d.phase)]];
  const stop = d.stoppedBy;
  if (d.reason === 'guardrail' && stop !== undefined) {
    return {
      line: `Experiment ${name} stopped: ${escape(stop.variation ?? '')} harmed the guardrail ${escape(stop.metric ?? '')}`,
      details: ['The service stopped it by itself: the harm is significant across every guardrail × challenger.'],
      fields: [...guardrailFields(stop), ...phase],
      by: d.by,
    };
  }
  if (d.reason === 'srm' && stop !== undefined) {
    return {
      line: `Experiment ${name} stopped: sample-ratio mismatch`,
      details: ['The service stopped it by itself: its units do not follow its weights.'],
      fields: [['p-value', pValue(stop.srmPValue)], ['Units', String(stop.units ?? 0)], ...phase],
      by: d.by,
    };
  }
  if (d.reason === 'winner') {
    return { line: `Experiment ${name} stopped: ${escape(d.winner ?? '')} is the winner`, fields: [['Winner', escape(d.winner ?? '')], ...phase], by: d.by };
  }
  return { line: `Experiment ${name} stopped`, fields: phase, by: d.by };
}

function guardrailFields(stop: AutomaticStop): [string, string][] {
  const adjusted = stop.familySize === undefined ? pValue(stop.pValueAdjusted) : `${pValue(stop.pValueAdjusted)} (Holm over ${stop.familySize} tests)`;
  return [
    ['Metric', escape(stop.metric ?? '')], ['Variation', escape(stop.variation ?? '')],
    ['Uplift', percent(stop.uplift)], ['Interval', interval(stop.ci)],
    ['p-value adjusted', adjusted], ['Units', String(stop.units ?? 0)],
  ];
}

function phaseStarted(d: WebhookDataByType['experiment.phase_started']): Summary {
  const fields: [string, string][] = [['Phase', String(d.phase)], ['Weights', moves(d.before.weights, d.after.weights)]];
  if (d.before.traffic !== d.after.traffic) fields.push(['Traffic', `${d.before.traffic} % → ${d.after.traffic} %`]);
  return {
    line: `Experiment ${escape(d.experience)}: phase ${d.phase} started`,
    details: d.changes.map((change) => `• ${escape(change)}`),
    fields,
    by: d.by,
  };
}

function srmDetected(d: WebhookDataByType['experiment.srm_detected']): Summary {
  return {
    line: `Sample-ratio mismatch in experiment ${escape(d.experience)}`,
    details: [`Its units in phase ${d.phase} do not follow its weights: check what reports its exposures before reading its results.`],
    fields: [['p-value', pValue(d.pValue)], ['Units', listing(d.units, String)], ['Weights', weights(d.weights)], ['Phase', String(d.phase)]],
  };
}

function significant(d: WebhookDataByType['experiment.significant']): Summary {
  const fields: [string, string][] = [
    ['Metric', escape(d.metric)], ['Variation', `${escape(d.variation)} vs ${escape(d.baseline)}`],
    ['Uplift', percent(d.uplift)], [`Interval (${confidence(d.alpha)})`, interval(d.ci)],
    ['p-value', pValue(d.pValue)],
  ];
  if (d.pValueAdjusted !== undefined) fields.push(['p-value adjusted', pValue(d.pValueAdjusted)]);
  fields.push(['Test', d.sequential ? 'sequential' : 'fixed-horizon'], ['Phase', String(d.phase)]);
  return { line: `Experiment ${escape(d.experience)}: ${escape(d.variation)} is significantly ${d.direction} on ${escape(d.metric)}`, fields };
}

const REWEIGHT_REASONS: Record<WebhookDataByType['bandit.reweighted']['reason'], string> = {
  exploration: 'exploring: equal weights',
  thompson: 'Thompson sampling',
  manual: 'set by hand',
};

function reweighted(d: WebhookDataByType['bandit.reweighted']): Summary {
  const fields: [string, string][] = [['Weights', moves(d.previous, d.weights)], ['Reason', REWEIGHT_REASONS[d.reason]]];
  if (d.probabilityBest !== undefined) fields.push(['Chance of being best', listing(d.probabilityBest, (p) => `${Math.round(p * 100)} %`)]);
  return { line: `Bandit ${escape(d.experience)} reweighted`, fields, by: d.by };
}

function requestDone(d: WebhookDataByType['privacy.request_done']): Summary {
  const rows = Object.keys(d.counts).length === 0 ? 'none' : listing(d.counts, String);
  return {
    line: `${d.kind === 'erasure' ? 'Erasure' : 'Export'} request ${escape(d.request)} done`,
    fields: [['Request', escape(d.request)], [d.kind === 'erasure' ? 'Rows erased' : 'Rows found', rows]],
  };
}

function feedChanged(d: WebhookDataByType['feed.changed']): Summary {
  return { line: `Feed ${d.feed} ${d.action}`, by: d.by };
}

function testEvent(d: WebhookDataByType['webhook.test']): Summary {
  return { line: 'Test event from svc', details: [escape(d.message)], fields: [['Endpoint', escape(d.endpoint)]] };
}

function actorText(by: WebhookActor): string {
  return by.type === 'service' ? `the service (${escape(by.name)})` : escape(by.name);
}

/** `control 120 · bold 40`, each value as `format` writes it. */
function listing(values: Record<string, number>, format: (value: number) => string): string {
  return Object.entries(values).map(([name, value]) => `${escape(name)} ${format(value)}`).join(' · ');
}

function weights(values: Record<string, number>): string {
  return listing(values, (w) => `${w} %`);
}

/** Each variation's weight before → after, a line each. */
function moves(before: Record<string, number>, after: Record<string, number>): string {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const weight = (w: number | undefined): string => (w === undefined ? '–' : `${w} %`);
  return names.map((name) => `${escape(name)}: ${weight(before[name])} → ${weight(after[name])}`).join('\n');
}

/** A share as a signed percentage: 0.123 → `+12.3 %`. */
function percent(share: number | null | undefined): string {
  if (typeof share !== 'number') return 'n/a';
  const value = (share * 100).toFixed(1);
  return `${share > 0 && value !== '0.0' ? '+' : ''}${value === '-0.0' ? '0.0' : value} %`;
}

function interval(ci: [number, number] | null | undefined): string {
  return ci == null ? 'n/a' : `${percent(ci[0])} to ${percent(ci[1])}`;
}

function pValue(p: number | null | undefined): string {
  if (typeof p !== 'number') return 'n/a';
  return p < 0.0001 ? '< 0.0001' : p.toPrecision(2);
}

/** The interval's level, 1 − alpha: `95 %`. */
function confidence(alpha: number): string {
  return `${Number(((1 - alpha) * 100).toFixed(2))} %`;
}
