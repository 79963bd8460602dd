// The events a project's webhooks carry (server/webhooks/), their payload as the Standard Webhooks body, and what the
// console shows of an endpoint: the contract the service sends and the console reads, in one place.
import type { AutomaticStop } from './automatic-stop.js';

/** Every event type an endpoint may ask for, in the order the console lists them. */
export const WEBHOOK_EVENT_TYPES = [
  'experiment.started',
  'experiment.stopped',
  'experiment.phase_started',
  'experiment.srm_detected',
  'experiment.significant',
  'bandit.reweighted',
  'privacy.request_done',
  'feed.changed',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The event "send a test event" sends: to that endpoint only, whatever events it asked for. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** An endpoint's format: the Standard Webhooks JSON body, or Slack's incoming-webhook message (text and blocks). */
export type WebhookFormat = 'standard' | 'slack';

/** Who made a change an event reports: a person (their email), a key (its name), or the service by itself. */
export interface WebhookActor {
  type: 'person' | 'key' | 'service';
  name: string;
}

/**
 * The data of each event type. Every one names the organization and project, and `url` links to the console's page of
 * the item (absolute, from the service's public URL). None carries a visitor's id, a person's id in a privacy request,
 * or a secret.
 */
export interface WebhookDataByType {
  'experiment.started': { experience: string; phase: number; weights: Record<string, number>; by: WebhookActor };
  'experiment.stopped': {
    experience: string;
    /** `person`: stopped by hand; `winner`: a winner was chosen; `guardrail` / `srm`: stopped by the service. */
    reason: 'person' | 'winner' | 'guardrail' | 'srm';
    winner?: string;
    /** The service's stop with its numbers (`guardrail`, `srm`). */
    stoppedBy?: AutomaticStop;
    phase: number | null;
    by: WebhookActor;
  };
  'experiment.phase_started': {
    experience: string;
    phase: number;
    /** What changed, each as `what before → after` (`weights 50/50 → 20/80`, `traffic 100 % → 50 %`). */
    changes: string[];
    before: { weights: Record<string, number>; traffic: number };
    after: { weights: Record<string, number>; traffic: number };
    by: WebhookActor;
  };
  'experiment.srm_detected': {
    experience: string;
    phase: number;
    pValue: number;
    /** Units per variation in the phase, and the weights they were expected to follow. */
    units: Record<string, number>;
    weights: Record<string, number>;
  };
  'experiment.significant': {
    experience: string;
    phase: number;
    metric: string;
    variation: string;
    baseline: string;
    /** Relative uplift over the baseline and its interval (a share: 0.05 is +5 %). */
    uplift: number;
    ci: [number, number];
    pValue: number | null;
    sequential: boolean;
  };
  'bandit.reweighted': {
    experience: string;
    weights: Record<string, number>;
    previous: Record<string, number>;
    reason: string;
    /** Each arm's chance of being best at the reweight, when the bandit drew it. */
    probabilityBest?: Record<string, number>;
  };
  'privacy.request_done': { request: string; kind: 'erasure' | 'export'; status: 'done' | 'failed' };
  'feed.changed': { feed: string; action: 'created' | 'updated' | 'deleted'; by: WebhookActor };
  'webhook.test': { endpoint: string; message: string };
}

/** The Standard Webhooks body of one event: what an endpoint of format `standard` receives, signed. */
export type WebhookPayload<T extends keyof WebhookDataByType = keyof WebhookDataByType> = {
  [K in T]: {
    type: K;
    /** ISO 8601: when the event happened. */
    timestamp: string;
    data: WebhookDataByType[K] & { organization: string; project: string; url: string };
  };
}[T];
