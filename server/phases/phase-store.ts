import type { ExperienceConfig } from '../config/config-types.js';
import { op, type SqlProgram } from '../storage/sql-program.js';
import type { Storage } from '../storage/storage.js';
import type { ResultsPhase } from '../../wire/results-answer.js';
import { isRunningExperiment, phaseStep, weightsOf } from './phase-step.js';

/** A phase as stored: times in epoch ms (`startedAt` null: since the experiment's first exposure). */
export interface StoredPhase {
  phase: number;
  startedAt: number | null;
  endedAt: number | null;
  weights: Record<string, number>;
  version: number;
  reason: string;
  /** The experiment's count of re-randomisations during the phase: the phases of one count share their people. */
  randomization: number;
}

/** The experiment's phases, oldest first (none: it was never changed, started or stopped through the API). */
export function* phasesProgram(project: string, experience: string): SqlProgram<StoredPhase[]> {
  const { rows } = yield op(
    `SELECT phase, started_at, ended_at, weights, version, reason, randomization FROM experiment_phases
     WHERE project = ? AND experience = ? ORDER BY phase`,
    project, experience,
  );
  return rows.map((r) => ({
    phase: Number(r.phase),
    startedAt: r.started_at === null ? null : Number(r.started_at),
    endedAt: r.ended_at === null ? null : Number(r.ended_at),
    weights: JSON.parse(String(r.weights)) as Record<string, number>,
    version: Number(r.version),
    reason: String(r.reason),
    randomization: Number(r.randomization),
  }));
}

/** Reads an experiment's phases. */
export function readPhases(storage: Storage, project: string, experience: string): Promise<StoredPhase[]> {
  return storage.run(() => phasesProgram(project, experience));
}

/** One write of an experience, as its phases see it. */
export interface ExperienceWrite {
  project: string;
  name: string;
  before: ExperienceConfig | null;
  /** The version `before` had (the file's item: 1). */
  beforeVersion: number;
  after: ExperienceConfig | null;
  version: number;
  at: number;
}

/**
 * Records what a write does to the experiment's phases (phaseStep), inside the write's transaction: ends the current
 * phase at the write's time and begins the next. An experiment that ran before phases were recorded gets its first
 * phase then, from its first exposure (started_at NULL) with the weights it had.
 */
export function* recordPhaseStep(write: ExperienceWrite): SqlProgram<void> {
  const { project, name, at } = write;
  const { rows } = yield op(
    'SELECT phase, ended_at FROM experiment_phases WHERE project = ? AND experience = ? ORDER BY phase DESC LIMIT 1', project, name,
  );
  const last = rows[0];
  const step = phaseStep(write.before, write.after, last !== undefined);
  let phase = last === undefined ? 0 : Number(last.phase);
  const insert = (started: number | null, ended: number | null, experience: ExperienceConfig, version: number, reason: string) => op(
    `INSERT INTO experiment_phases (project, experience, phase, started_at, ended_at, weights, version, reason, randomization)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    project, name, ++phase, started, ended, JSON.stringify(weightsOf(experience)), version, reason, experience.randomization ?? 0,
  );
  if (step.end) {
    if (last === undefined) yield insert(null, at, write.before as ExperienceConfig, write.beforeVersion, 'started');
    else if (last.ended_at === null) {
      yield op('UPDATE experiment_phases SET ended_at = ? WHERE project = ? AND experience = ? AND phase = ?', at, project, name, phase);
    }
  }
  else if (step.start !== null && last !== undefined && last.ended_at === null) {
    // A phase left open by a change made outside the API (the file's status edited): the new one closes it.
    yield op('UPDATE experiment_phases SET ended_at = ? WHERE project = ? AND experience = ? AND phase = ?', at, project, name, phase);
  }
  else if (last === undefined && step.start === null && banditMoves(write.before, write.after)) {
    // A bandit that ran from the file moves its weights for the first time: its phase is recorded now, open, with the
    // weights it had, which results need for the units exposed before this first reweight.
    yield insert(null, null, write.before as ExperienceConfig, write.beforeVersion, 'started');
  }
  if (step.start !== null) yield insert(at, null, write.after as ExperienceConfig, write.version, step.start);
}

/** A running bandit whose weights this write moves (which keeps its phase: phase-step.ts). */
function banditMoves(before: ExperienceConfig | null, after: ExperienceConfig | null): boolean {
  return before !== null && after !== null && isRunningExperiment(before) && isRunningExperiment(after)
    && before.allocation === 'bandit' && after.allocation === 'bandit'
    && JSON.stringify(weightsOf(before)) !== JSON.stringify(weightsOf(after));
}

/**
 * The phases as results answer them: the stored ones, or, for an experiment that has none, one phase since its first
 * exposure (`firstExposure`, epoch ms; null: none yet) with its current weights.
 */
export function answeredPhases(stored: readonly StoredPhase[], experience: ExperienceConfig, firstExposure: number | null): ResultsPhase[] {
  const iso = (t: number): string => new Date(t).toISOString();
  if (stored.length === 0) {
    return [{ phase: 1, startedAt: firstExposure === null ? null : iso(firstExposure), weights: weightsOf(experience), version: 1, reason: 'started' }];
  }
  return stored.map((p) => ({
    phase: p.phase,
    startedAt: p.startedAt !== null ? iso(p.startedAt) : firstExposure === null ? null : iso(firstExposure),
    ...(p.endedAt !== null ? { endedAt: iso(p.endedAt) } : {}),
    weights: p.weights,
    version: p.version,
    reason: p.reason,
  }));
}
