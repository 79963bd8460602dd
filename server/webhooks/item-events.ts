import type { Actor } from '../auth/management-caller.js';
import type { ExperienceConfig } from '../config/config-types.js';
import { isRunningExperiment, phaseChanges, weightsOf } from '../phases/phase-step.js';
import { phasesProgram } from '../phases/phase-store.js';
import type { ReweightRecord } from '../phases/reweight-store.js';
import type { SqlProgram } from '../storage/sql-program.js';
import type { WebhookActor, WebhookDataByType, WebhookEventType } from '../../wire/webhook-events.js';
import { consolePath, emitWebhookEvent, type WebhookEvent } from './webhook-outbox.js';

// What a management write of an experience or a feed tells a project's webhooks: derived from the item before and
// after the write, inside the write's transaction (after its phase step), so each change is queued once, by the node
// that made it, exactly when it commits.

/** One management write as its events see it. */
export interface ItemChange {
  project: string;
  kind: 'experience' | 'metric' | 'feed';
  name: string;
  before: object | null;
  after: object | null;
  actor: Actor;
  /** The service's own write (a guardrail's stop, a bandit's reweight), made in the name of `actor`. */
  byService: boolean;
  /** The reweight recorded with the write: the service's, or a person's change of a running bandit's weights. */
  reweight: ReweightRecord | null;
  at: number;
}

/** Queues the events of `change` (none for a metric, or an edit that starts, stops and moves nothing). */
export function* emitItemEvents(change: ItemChange): SqlProgram<void> {
  const events = change.kind === 'feed' ? [feedChanged(change)]
    : change.kind === 'experience' ? yield* experimentEvents(change) : [];
  for (const event of events) yield* emitWebhookEvent(event);
}

/** Who the payload says made the change: a person by their email, a key by its name, or the service. */
function actorOf(change: ItemChange): WebhookActor {
  return { type: change.byService ? 'service' : change.actor.type, name: change.actor.name };
}

function feedChanged(change: ItemChange): WebhookEvent<'feed.changed'> {
  const action = change.after === null ? 'deleted' : change.before === null ? 'created' : 'updated';
  return {
    project: change.project, type: 'feed.changed', at: change.at,
    // A feed's name is its id; a deleted one has no editor left to open.
    path: consolePath(change.project, action === 'deleted' ? '#/feeds' : `#/feeds/${change.name}/edit`),
    data: { feed: Number(change.name), action, by: actorOf(change) },
  };
}

/** The experiment's events: a start, a new phase, or a stop (or a winner chosen after one); and a reweight. */
function* experimentEvents(change: ItemChange): SqlProgram<WebhookEvent[]> {
  const { project, name: experience, at } = change;
  const before = change.before as ExperienceConfig | null;
  const after = change.after as ExperienceConfig | null;
  const wasRunning = isRunningExperiment(before);
  const runs = isRunningExperiment(after);
  const by = actorOf(change);
  const path = consolePath(project, `#/experiences/${encodeURIComponent(experience)}/results`);
  const events: WebhookEvent[] = [];
  const add = <T extends WebhookEventType>(type: T, data: WebhookDataByType[T]): void => {
    events.push({ project, type, data, at, path });
  };
  // The phase the write's step began or ended, as recorded just before in this transaction.
  const lastPhase = function* (): SqlProgram<number | null> {
    return (yield* phasesProgram(project, experience)).at(-1)?.phase ?? null;
  };
  const split = (e: ExperienceConfig) => ({ weights: weightsOf(e), traffic: e.traffic ?? 100 });
  const changes = wasRunning && runs ? phaseChanges(before!, after!) : [];
  if (!wasRunning && runs) {
    add('experiment.started', { experience, phase: (yield* lastPhase()) ?? 1, ...split(after!), by });
  } else if (changes.length > 0) {
    add('experiment.phase_started', { experience, phase: (yield* lastPhase()) ?? 1, changes, before: split(before!), after: split(after!), by });
  } else if ((wasRunning && !runs) || winnerChosen(before, after)) {
    add('experiment.stopped', { experience, ...stopOf(after, change.byService), phase: yield* lastPhase(), by });
  }
  if (change.reweight !== null && before !== null) add('bandit.reweighted', reweighted(experience, before, change.reweight, by));
  return events;
}

/** A stopped experiment given a winner (or another one): the decision after the stop, told as a stop for the winner. */
function winnerChosen(before: ExperienceConfig | null, after: ExperienceConfig | null): boolean {
  return before?.variations !== undefined && before.status === 'stopped' && after?.status === 'stopped'
    && after.winner !== undefined && after.winner !== before.winner;
}

/**
 * Why it stopped: the service's rule with its numbers (its own stop: a person's later write may carry `stoppedBy` along,
 * choosing a winner after it), a winner, or a person's (or key's) decision.
 */
function stopOf(after: ExperienceConfig | null, byService: boolean): Pick<WebhookDataByType['experiment.stopped'], 'reason' | 'winner' | 'stoppedBy'> {
  if (byService && after?.stoppedBy !== undefined) return { reason: after.stoppedBy.rule, stoppedBy: after.stoppedBy };
  if (after?.winner !== undefined) return { reason: 'winner', winner: after.winner };
  return { reason: 'person' };
}

function reweighted(experience: string, before: ExperienceConfig, record: ReweightRecord, by: WebhookActor): WebhookDataByType['bandit.reweighted'] {
  const data: WebhookDataByType['bandit.reweighted'] = { experience, weights: record.weights, previous: weightsOf(before), reason: record.reason, by };
  if (record.arms.length > 0) data.probabilityBest = Object.fromEntries(record.arms.map((arm) => [arm.name, arm.probabilityBest]));
  return data;
}
