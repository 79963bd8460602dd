import { resolveBandit, type ResolvedBandit } from '../config/bandit-settings.js';
import type { ConfigStore, ProjectRef } from '../config/config-store.js';
import type { ExperienceConfig } from '../config/config-types.js';
import { ServiceError } from '../errors/service-error.js';
import { SERVICE_ACTOR } from '../guardrails/guardrail-watch.js';
import { PeriodicLook } from '../jobs/periodic-look.js';
import type { ManagedConfig } from '../management/managed-config.js';
import { writeItem, type AuditActor, type Item } from '../management/managed-item-store.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { isRunningExperiment, weightsOf } from '../phases/phase-step.js';
import { phasesProgram } from '../phases/phase-store.js';
import { lastReweightProgram, type ReweightRecord } from '../phases/reweight-store.js';
import { armPosteriors } from '../results/bandit-arms.js';
import { parseResultsQuery } from '../results/results-query.js';
import type { ResultsService } from '../results/results-service.js';
import type { SqlProgram } from '../storage/sql-program.js';
import type { Storage } from '../storage/storage.js';
import { equalWeights, thompsonWeights } from './thompson-weights.js';
import type { ResultsAnswer } from '../../wire/results-answer.js';

/** Who reweights a bandit, in the audit log: the service's key, named for the job. */
export const BANDIT_ACTOR: AuditActor = { type: 'key', id: SERVICE_ACTOR, name: 'svc bandit' };

/** How often running bandits are looked at, by default: a bandit is at most this late on its cadence (5 minutes or more). */
const DEFAULT_INTERVAL_MS = 60_000;

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

export interface BanditWatchDeps {
  config: ConfigStore;
  managed: ManagedConfig;
  storage: Storage;
  results: ResultsService;
  metrics: ServiceMetrics;
}

export interface BanditWatchOptions {
  intervalMs?: number;
  now?: () => number;
  logger?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

/** A reweight the watch made. */
export interface WatchedReweight {
  project: string;
  experience: string;
  /** Epoch ms: the reweight's time, as recorded. */
  at: number;
  reason: ReweightRecord['reason'];
  weights: Record<string, number>;
  /** The experience's version the reweight's write made. */
  version: number;
}

/** Where a bandit's current phase stands, from the database. */
interface BanditClock {
  /** The current phase's start (epoch ms); null: it runs since its first exposure (a file experiment never written). */
  phaseStart: number | null;
  /** The last reweight made in the current phase; null: none yet. */
  lastReweight: number | null;
}

/**
 * Looks at every running bandit (`allocation: "bandit"`) every `intervalMs`, on every node. While it explores (fewer
 * than `explorationHours` since its phase began, or fewer exposed units than `explorationUnits`) its weights are equal:
 * unequal ones are set equal at once (reason `exploration`). After that, once `cadenceMinutes` have passed since its
 * last reweight (or its phase's start), the current phase's results on its decision metric give each arm a posterior
 * and Thompson sampling draws the new weights (reason `thompson`). A reweight is a management write (audit action
 * `reweight`, recorded in bandit_reweights in the same transaction) made with `If-Match` of the version looked at, and
 * refused inside the transaction when a reweight was recorded since the look: of the nodes looking at the same moment
 * one reweights, and a person's edit made meanwhile wins. Nobody already assigned moves: first assignments are stored.
 */
export class BanditWatch {
  readonly #looks = new PeriodicLook<WatchedReweight[]>(() => this.#checkAll());
  /** A phase with no recorded start runs since its first exposure, which never changes once known: by project and name. */
  readonly #firstExposures = new Map<string, number>();

  constructor(private readonly deps: BanditWatchDeps, private readonly options: BanditWatchOptions = {}) {}

  start(): void {
    this.#looks.start(this.options.intervalMs ?? DEFAULT_INTERVAL_MS);
  }

  close(): Promise<void> {
    return this.#looks.close();
  }

  /** Looks at every running bandit now (joins a look under way); answers the reweights it made. */
  check(): Promise<WatchedReweight[]> {
    return this.#looks.now();
  }

  async #checkAll(): Promise<WatchedReweight[]> {
    const made: WatchedReweight[] = [];
    const watched = this.deps.config.projects().flatMap((project) => (project.config.experiences ?? [])
      .filter((e) => e.allocation === 'bandit').map((e) => ({ project: project.key, name: e.name })));
    for (const { project, name } of watched) {
      if (this.#looks.closed) break;
      try {
        const reweight = await this.#look(project, name);
        if (reweight !== null) made.push(reweight);
      } catch (error) {
        this.options.logger?.warn({ project, experience: name, error: String(error) }, 'bandit reweight failed; the next look retries');
      }
    }
    return made;
  }

  /**
   * The experience as this node serves it now, with the version it has: taken together, since both are swapped in at
   * once when the node reads a write (an earlier copy beside a later version would have a write undo an edit).
   */
  #current(projectKey: string, name: string): { project: ProjectRef; experience: ExperienceConfig; version: number } | null {
    const project = this.deps.config.projects().find((p) => p.key === projectKey);
    const experience = project?.config.experiences?.find((e) => e.name === name);
    if (project === undefined || experience === undefined || !isRunningExperiment(experience) || experience.allocation !== 'bandit') return null;
    const version = this.deps.managed.projectItems(projectKey)?.get('experience')?.get(name)?.version ?? 1;
    return { project, experience, version };
  }

  async #look(projectKey: string, name: string): Promise<WatchedReweight | null> {
    // The version is read before the last reweight's time: a reweight made in between moved the version, so this
    // look's write is refused by If-Match (and by the guard, which reads the last reweight again in the transaction).
    const current = this.#current(projectKey, name);
    if (current === null) return null;
    const { project, experience, version } = current;
    const bandit = resolveBandit(experience) as ResolvedBandit;
    const now = this.#now();
    const clock = await this.deps.storage.run(() => banditClockProgram(projectKey, name));
    const key = `${projectKey}\u0000${name}`;
    if (clock.phaseStart !== null) this.#firstExposures.delete(key);
    const start = clock.phaseStart ?? this.#firstExposures.get(key) ?? null;
    const equal = isEqualSplit(experience);
    const explore = (): Promise<WatchedReweight | null> => (equal ? Promise.resolve(null) : this.#reweight(project, experience, version, clock, {
      weights: equalWeights((experience.variations ?? []).map((v) => v.name)), arms: [], reason: 'exploration',
    }, now));

    if (start !== null && now < start + bandit.explorationHours * HOUR_MS) return explore();
    const since = clock.lastReweight ?? start;
    const due = since === null ? null : now - since >= bandit.cadenceMinutes * MINUTE_MS;
    // Not due: only a bandit exploring by units whose weights are not equal yet has anything to do (its units say so).
    if (due === false && (equal || bandit.explorationUnits === 0 || clock.lastReweight !== null)) return null;

    const report = await this.#report(project, experience, bandit.metric);
    const firstExposure = report.phases.find((p) => p.phase === report.phase)?.startedAt ?? null;
    const began = start ?? (firstExposure === null ? null : Date.parse(firstExposure));
    if (began === null) return explore();
    if (clock.phaseStart === null) this.#firstExposures.set(key, began);
    if (now < began + bandit.explorationHours * HOUR_MS || report.units < bandit.explorationUnits) return explore();
    if (now - (clock.lastReweight ?? began) < bandit.cadenceMinutes * MINUTE_MS) return null;

    const arms = armPosteriors(report, bandit.metric);
    const inverse = report.metrics.find((m) => m.name === bandit.metric)?.inverse ?? false;
    const drawn = thompsonWeights(arms, { minShare: bandit.minShare, inverse, seed: `${projectKey}/${name}/${new Date(now).toISOString()}` });
    return this.#reweight(project, experience, version, clock, {
      weights: drawn.weights,
      arms: arms.map((arm) => ({ ...arm, probabilityBest: drawn.probabilityBest[arm.name] ?? 0 })),
      reason: 'thompson',
    }, now);
  }

  /** The current phase's results on the decision metric alone. */
  #report(project: ProjectRef, experience: ExperienceConfig, metric: string): Promise<ResultsAnswer> {
    const query = parseResultsQuery({ metrics: metric }, project.config.metrics ?? [], experience);
    return this.deps.results.compute(project.key, { ...experience, variations: experience.variations ?? [] }, query);
  }

  /**
   * Writes the experience as it was looked at with the new weights; null when it changed meanwhile (its version moved,
   * or a reweight was recorded since the look: another node's, or a person's edit).
   */
  async #reweight(
    project: ProjectRef, experience: ExperienceConfig, version: number, clock: BanditClock, record: ReweightRecord, at: number,
  ): Promise<WatchedReweight | null> {
    const { managed, storage, metrics } = this.deps;
    if (this.#looks.closed) return null;
    const variations = (experience.variations ?? []).map((v) => ({ ...v, weight: record.weights[v.name] as number }));
    if (variations.some((v) => !Number.isFinite(v.weight))) throw new Error(`the drawn weights name other arms: ${JSON.stringify(record.weights)}`);
    const item = { ...experience, variations } as unknown as Item;
    const fileItem = managed.fileConfig.organizations[project.org]?.projects[project.name]?.experiences
      ?.find((e) => e.name === experience.name) ?? null;
    const name = experience.name;
    let written: number;
    try {
      ({ version: written } = await writeItem(storage, {
        project: project.key, kind: 'experience', name, item, fileItem: fileItem as Item | null,
        keyId: SERVICE_ACTOR, actor: BANDIT_ACTOR, at, action: 'reweight', reweight: record, ifMatch: version,
        guard: () => unchangedSince(project.key, name, clock),
      }));
    } catch (error) {
      if (!(error instanceof ServiceError && error.code === 'version_conflict')) throw error;
      // Another node (or a person) changed it first: this node's view is behind; the next look starts from theirs.
      await managed.refresh();
      return null;
    }
    await managed.refresh();
    metrics.banditReweights.inc({ project: project.key, experience: name, reason: record.reason });
    this.options.logger?.info({ project: project.key, experience: name, reason: record.reason, weights: record.weights, version: written },
      `bandit reweighted (${record.reason}): ${Object.entries(record.weights).map(([arm, w]) => `${arm} ${w} %`).join(', ')}`);
    return { project: project.key, experience: name, at, reason: record.reason, weights: record.weights, version: written };
  }

  #now(): number {
    return (this.options.now ?? Date.now)();
  }
}

/** The current phase's start and its last reweight, in one read. */
function* banditClockProgram(project: string, name: string): SqlProgram<BanditClock> {
  const phases = yield* phasesProgram(project, name);
  const phaseStart = phases.at(-1)?.startedAt ?? null;
  const lastReweight = yield* lastReweightProgram(project, name, phaseStart ?? 0);
  return { phaseStart, lastReweight };
}

/** Inside the reweight's transaction: refuses it when a reweight was recorded after the one its look saw. */
function* unchangedSince(project: string, name: string, seen: BanditClock): SqlProgram<void> {
  const last = yield* lastReweightProgram(project, name, seen.phaseStart ?? 0);
  if (last !== seen.lastReweight) {
    throw new ServiceError('version_conflict', `The bandit "${name}" was reweighted at ${new Date(last ?? 0).toISOString()}, after this look.`);
  }
}

/**
 * Weights that split traffic evenly, as a person types them: each within a point of 100 / arms (34/33/33 is even;
 * Thompson's draws are not).
 */
function isEqualSplit(experience: ExperienceConfig): boolean {
  const weights = Object.values(weightsOf(experience));
  return weights.every((w) => Math.abs(w - 100 / weights.length) < 1);
}
