import type { ConfigStore, ProjectRef } from '../config/config-store.js';
import type { AutomaticStop, ExperienceConfig } from '../config/config-types.js';
import { ServiceError } from '../errors/service-error.js';
import type { ManagedConfig } from '../management/managed-config.js';
import { writeItem, type Item } from '../management/managed-item-store.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { isRunningExperiment } from '../phases/phase-step.js';
import { parseResultsQuery } from '../results/results-query.js';
import type { ResultsService } from '../results/results-service.js';
import type { Storage } from '../storage/storage.js';
import { emitResultsAlerts, resultsAlerts, wantedAlerts, type ResultsAlertType } from '../webhooks/results-alerts.js';
import { describeStop, guardrailVerdict } from './guardrail-verdict.js';
import { PeriodicLook } from '../jobs/periodic-look.js';
import type { ResultsAnswer } from '../../wire/results-answer.js';

/** The audit log's key id of what the service does by itself. */
export const SERVICE_ACTOR = 'service';

/** How often running experiments' guardrails are looked at, by default: a sequential test allows any rhythm. */
const DEFAULT_INTERVAL_MS = 10 * 60_000;

export interface GuardrailWatchDeps {
  config: ConfigStore;
  managed: ManagedConfig;
  storage: Storage;
  results: ResultsService;
  metrics: ServiceMetrics;
}

export interface GuardrailWatchOptions {
  intervalMs?: number;
  now?: () => number;
  logger?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

/** A running experiment the watch may stop, with the version it was looked at in: read together, before computing. */
interface GuardrailLook {
  project: ProjectRef;
  experience: ExperienceConfig;
  version: number;
}

const NO_ALERTS: ReadonlySet<ResultsAlertType> = new Set();

/** An experiment the watch stopped. */
export interface WatchedStop {
  project: string;
  experience: string;
  stop: AutomaticStop;
}

/**
 * Looks at every running experiment that has guardrails (or `stopOnSrm`) every `intervalMs`: computes its current
 * phase's guardrails and, when a variation harms one by the one-sided sequential test (safe at any rhythm of looks),
 * its p-value adjusted across every guardrail × challenger (guardrail-verdict.ts), or when `stopOnSrm` and the
 * phase's split mismatches its weights, stops the whole experiment through the management
 * write (status `stopped`, `stoppedBy` with the rule and the numbers, audit action `stop` by `service`). A mismatch
 * without `stopOnSrm` is logged and counted, never acted on. Every node watches; the write's `If-Match` (the version
 * read with the experience, before computing) lets one stop it, and an edit made meanwhile wins (the next look sees
 * the edited experiment).
 *
 * The same look tells the project's webhooks what it found (server/webhooks/results-alerts.ts): a mismatch, a goal
 * metric significant for the first time in the phase. For them every running experiment is looked at, but only in a
 * project with an enabled endpoint that asked for one of those events, and the goals are computed only when one asked
 * for `experiment.significant`: one computation of the current phase serves the stop and the alerts.
 */
export class GuardrailWatch {
  readonly #looks = new PeriodicLook<WatchedStop[]>(() => this.#checkAll());

  constructor(private readonly deps: GuardrailWatchDeps, private readonly options: GuardrailWatchOptions = {}) {}

  start(): void {
    this.#looks.start(this.options.intervalMs ?? DEFAULT_INTERVAL_MS);
  }

  close(): Promise<void> {
    return this.#looks.close();
  }

  /** Looks at every watched experiment now (joins a look under way); answers the experiments it stopped. */
  check(): Promise<WatchedStop[]> {
    return this.#looks.now();
  }

  async #checkAll(): Promise<WatchedStop[]> {
    const stopped: WatchedStop[] = [];
    const alerts = await this.#wantedAlerts();
    const watched = this.deps.config.projects().flatMap((project) => (project.config.experiences ?? [])
      .map((e) => ({ project: project.key, name: e.name })));
    for (const { project, name } of watched) {
      if (this.#looks.closed) return stopped;
      try {
        const stop = await this.#look(project, name, alerts.get(project) ?? NO_ALERTS);
        if (stop !== null) stopped.push({ project, experience: name, stop });
      } catch (error) {
        this.options.logger?.warn({ project, experience: name, error: String(error) }, 'guardrail check failed; the next one retries');
      }
    }
    return stopped;
  }

  /** The results alerts each project's webhooks asked for; none when they cannot be read (the guardrails still are). */
  async #wantedAlerts(): Promise<Map<string, Set<ResultsAlertType>>> {
    try {
      return await this.deps.storage.run(() => wantedAlerts());
    } catch (error) {
      this.options.logger?.warn({ error: String(error) }, 'cannot read the webhooks\' endpoints; this look sends no results alerts');
      return new Map();
    }
  }

  /**
   * The experiment as this node serves it now, with the version it has: taken together, since both are swapped in at
   * once when the node reads a write, and before its results are computed (a version read after them could be that
   * of an edit made meanwhile, and the stop would write the older copy over it). Null: not a running experiment with
   * guardrails, `stopOnSrm` or alerts asked for.
   */
  #current(projectKey: string, name: string, alerts: ReadonlySet<ResultsAlertType>): GuardrailLook | null {
    const project = this.deps.config.projects().find((p) => p.key === projectKey);
    const experience = project?.config.experiences?.find((e) => e.name === name);
    if (project === undefined || experience === undefined || !isRunningExperiment(experience)) return null;
    if ((experience.guardrails ?? []).length === 0 && experience.stopOnSrm !== true && alerts.size === 0) return null;
    const version = this.deps.managed.projectItems(projectKey)?.get('experience')?.get(name)?.version ?? 1;
    return { project, experience, version };
  }

  async #look(projectKey: string, name: string, alerts: ReadonlySet<ResultsAlertType>): Promise<AutomaticStop | null> {
    const look = this.#current(projectKey, name, alerts);
    if (look === null) return null;
    const { project, experience } = look;
    const { metrics, results } = this.deps;
    const goals = alerts.has('experiment.significant') ? experience.goals ?? [] : [];
    const names = [...(experience.guardrails ?? []), ...goals].join(',');
    // Only the guardrails' (and the goals', for alerts) events are read; with neither, none: the split needs no metric.
    const query = names === ''
      ? { metrics: [], counted: [], roles: new Map() }
      : parseResultsQuery({ metrics: names }, project.config.metrics ?? [], experience);
    const report = await results.compute(project.key, { ...experience, variations: experience.variations ?? [] }, query);
    if (report.srm.mismatch) {
      metrics.srmMismatches.inc({ project: project.key, experience: experience.name });
      this.options.logger?.warn({ project: project.key, experience: experience.name, phase: report.phase, pValue: report.srm.pValue }, 'sample-ratio mismatch in the current phase');
    }
    const stop = await this.#judge(look, report);
    if (!this.#looks.closed) await emitResultsAlerts(this.deps.storage, resultsAlerts(project.key, experience, report, alerts, this.#now()));
    return stop;
  }

  /**
   * Acts on a report of the experiment's current phase over all its units, computed after `look` was taken: stops the
   * running experiment when a variation harms one of its guardrails (or, with `stopOnSrm`, on a mismatch). Only the
   * watch's own looks are judged: a read of the results writes nothing (a viewer's key may read them). Answers the stop
   * made, or null.
   */
  async #judge(look: GuardrailLook, report: ResultsAnswer): Promise<AutomaticStop | null> {
    if (this.#looks.closed) return null;
    const stop = guardrailVerdict(look.experience, report, new Date(this.#now()).toISOString());
    if (stop === null) return null;
    return (await this.#stop(look, stop)) ? stop : null;
  }

  /** Stops the experiment as it was looked at, if its version has not moved since; false when it has. */
  async #stop({ project, experience, version }: GuardrailLook, stop: AutomaticStop): Promise<boolean> {
    const { managed, storage, metrics } = this.deps;
    const fileItem = managed.fileConfig.organizations[project.org]?.projects[project.name]?.experiences
      ?.find((e) => e.name === experience.name) ?? null;
    const item: Item = { ...(experience as unknown as Item), status: 'stopped', stoppedBy: stop };
    try {
      await writeItem(storage, {
        project: project.key, kind: 'experience', name: experience.name, item, fileItem: fileItem as Item | null,
        keyId: SERVICE_ACTOR, actor: { type: 'key', id: SERVICE_ACTOR, name: 'svc guardrail watch' }, at: this.#now(), action: 'stop',
        ifMatch: version,
      });
    } catch (error) {
      if (!(error instanceof ServiceError && error.code === 'version_conflict')) throw error;
      // A person (or another node) changed it first: this node's view may be behind; the next look starts from theirs.
      await managed.refresh();
      return false;
    }
    await managed.refresh();
    metrics.automaticStops.inc({ project: project.key, experience: experience.name, rule: stop.rule });
    this.options.logger?.warn({ project: project.key, experience: experience.name, stop }, `experiment stopped: ${describeStop(stop)}`);
    return true;
  }

  #now(): number {
    return (this.options.now ?? Date.now)();
  }
}
