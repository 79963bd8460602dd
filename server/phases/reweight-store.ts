import { op, type SqlProgram } from '../storage/sql-program.js';
import type { Storage } from '../storage/storage.js';
import type { ExperienceConfig } from '../config/config-types.js';
import type { BanditArm, ReweightReason } from '../../wire/results-answer.js';
import { isRunningExperiment, weightsOf } from './phase-step.js';

// A bandit's reweights as stored: written by the management write that moves its weights (in the same transaction),
// read by results (the periods a phase is stratified by) and by the bandit's next look (when the last one was).

/** One reweight: times in epoch ms. */
export interface StoredReweight {
  at: number;
  weights: Record<string, number>;
  /** What each arm's posterior was when the weights were drawn from it. */
  arms: BanditArm[];
  reason: ReweightReason;
  /** The experience's version the reweight's write made. */
  version: number;
}

/** What a reweight records beside the experience's write. */
export interface ReweightRecord {
  weights: Record<string, number>;
  arms: BanditArm[];
  reason: ReweightReason;
}

/**
 * The reweight a person's write of a running bandit makes when it changes the weights (the service's own come with
 * their record): results split the phase at it as at any reweight, since units before and after it were assigned
 * with different weights. Null when the write moves no bandit's weights.
 */
export function manualReweight(before: ExperienceConfig | null, after: ExperienceConfig | null): ReweightRecord | null {
  if (before?.allocation !== 'bandit' || after?.allocation !== 'bandit' || !isRunningExperiment(before) || !isRunningExperiment(after)) return null;
  const weights = weightsOf(after);
  if (JSON.stringify(weightsOf(before)) === JSON.stringify(weights)) return null;
  return { weights, arms: [], reason: 'manual' };
}

/** Records a reweight made by the write of `version` at `at` (inside that write's transaction). */
export function* recordReweight(project: string, experience: string, at: number, version: number, record: ReweightRecord): SqlProgram<void> {
  yield op(
    'INSERT INTO bandit_reweights (project, experience, at, weights, arms, reason, version) VALUES (?, ?, ?, ?, ?, ?, ?)',
    project, experience, at, JSON.stringify(record.weights), JSON.stringify(record.arms), record.reason, version,
  );
}

/** The experiment's reweights at or after `since` (epoch ms; null: all), oldest first. */
export function* reweightsProgram(project: string, experience: string, since: number | null = null): SqlProgram<StoredReweight[]> {
  const { rows } = yield op(
    `SELECT at, weights, arms, reason, version FROM bandit_reweights WHERE project = ? AND experience = ? AND at >= ? ORDER BY at`,
    project, experience, since ?? 0,
  );
  return rows.map((r) => ({
    at: Number(r.at),
    weights: JSON.parse(String(r.weights)) as Record<string, number>,
    arms: JSON.parse(String(r.arms)) as BanditArm[],
    reason: String(r.reason) as StoredReweight['reason'],
    version: Number(r.version),
  }));
}

/** When the experiment's last reweight at or after `since` (epoch ms) was made; null: none since then. */
export function* lastReweightProgram(project: string, experience: string, since: number): SqlProgram<number | null> {
  const { rows } = yield op('SELECT MAX(at) AS at FROM bandit_reweights WHERE project = ? AND experience = ? AND at >= ?', project, experience, since);
  const at = rows[0]?.at;
  return at === null || at === undefined ? null : Number(at);
}

/** Reads an experiment's reweights, oldest first. */
export function readReweights(storage: Storage, project: string, experience: string, since: number | null = null): Promise<StoredReweight[]> {
  return storage.run(() => reweightsProgram(project, experience, since));
}
