// The events a project's webhooks carry (server/webhooks/), their payload as the Standard Webhooks body, and what the
// console shows of an endpoint: the contract the service sends and the console reads, in one place.
import type { AutomaticStop } from './automatic-stop.js';
import type { ReweightReason } from './results-answer.js';

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
 * or a secret. Weights are percent by variation name; uplifts and intervals are shares (0.05 is +5 %).
 */
export interface WebhookDataByType {
  /** An experiment began to run: created running, or started (again) from a draft or a stop. */
  'experiment.started': {
    experience: string;
    /** The phase it began (2 or more: a restart). */
    phase: number;
    weights: Record<string, number>;
    /** Percent of the eligible visitors enrolled. */
    traffic: number;
    by: WebhookActor;
  };
  /** A running experiment stopped, or a stopped one was given a winner. */
  'experiment.stopped': {
    experience: string;
    /** `person`: stopped by hand; `winner`: a winner was chosen; `guardrail` / `srm`: stopped by the service. */
    reason: 'person' | 'winner' | 'guardrail' | 'srm';
    winner?: string;
    /** The service's stop with its numbers (`guardrail`, `srm`). */
    stoppedBy?: AutomaticStop;
    /** The phase that ended (or, for a winner chosen later, the last one); null: no phase was recorded. */
    phase: number | null;
    by: WebhookActor;
  };
  /** A change to a running experiment that makes its units incomparable began a new phase. */
  'experiment.phase_started': {
    experience: string;
    phase: number;
    /** What changed, each as `what before → after` (`weights 50/50 → 20/80`, `traffic 100 % → 50 %`). */
    changes: string[];
    before: { weights: Record<string, number>; traffic: number };
    after: { weights: Record<string, number>; traffic: number };
    by: WebhookActor;
  };
  /** The current phase's split of units mismatches its weights (sent once per phase). */
  'experiment.srm_detected': {
    experience: string;
    phase: number;
    pValue: number;
    /** Units per variation in the phase, and the weights they were expected to follow. */
    units: Record<string, number>;
    weights: Record<string, number>;
  };
  /** A goal metric became significant in the current phase (sent once per phase and metric). */
  'experiment.significant': {
    experience: string;
    phase: number;
    metric: string;
    /** The challenger with the smallest p-value among those significant, against the baseline (the control). */
    variation: string;
    baseline: string;
    /** `better`: in the metric's good direction (down for an inverse metric). */
    direction: 'better' | 'worse';
    /** Relative uplift over the baseline and its interval, at the experiment's level (1 − alpha). */
    uplift: number;
    ci: [number, number];
    pValue: number | null;
    /** With a correction across the goals × challengers: the p-value the decision was made on. */
    pValueAdjusted?: number | null;
    alpha: number;
    /** Always-valid sequential intervals and p-values (safe to read at any look), or fixed-horizon ones. */
    sequential: boolean;
  };
  /** A bandit's weights moved: by the service (`exploration`, `thompson`) or by hand (`manual`). */
  'bandit.reweighted': {
    experience: string;
    weights: Record<string, number>;
    previous: Record<string, number>;
    reason: ReweightReason;
    /** Each arm's chance of being best at the reweight (0–1), when the bandit drew the weights from its posteriors. */
    probabilityBest?: Record<string, number>;
    by: WebhookActor;
  };
  /** A privacy request finished: its id, never whom it was about. */
  'privacy.request_done': {
    request: string;
    kind: 'erasure' | 'export';
    status: 'done';
    /** Rows erased (erasure) or found (export), by kind. */
    counts: Record<string, number>;
  };
  /** A feed was created, changed or deleted through the management API. */
  'feed.changed': {
    /** The feed's id. */
    feed: number;
    action: 'created' | 'updated' | 'deleted';
    by: WebhookActor;
  };
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
