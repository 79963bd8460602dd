import type { ProjectRef } from '../config/config-store.js';
import type { ExperienceConfig } from '../config/config-types.js';
import { HOLDOUT_EXPERIMENT, holdoutExperiment } from '../config/recommendations-holdout.js';
import { op, type SqlProgram } from '../storage/sql-program.js';
import type { Storage } from '../storage/storage.js';
import { phaseStep } from './phase-step.js';
import { recordPhaseStep } from './phase-store.js';

/**
 * The phases of a project's recommendations holdout, kept in step with its share. The share is a setting of the
 * configuration file, which no management write records, so the phases are brought up to date by whoever serves the
 * holdout next: the first time it serves a configuration it has not seen (a start, a reload), it compares the last
 * recorded phase with the share and records the step between them as a management write would (the share changed: a
 * new phase; set to 0: the phase ends; set again: restarted). In one transaction, so nodes that look at once record one
 * step; a node that loses the race to record the same phase finds it recorded.
 */
export class HoldoutPhases {
  private readonly seen = new WeakMap<ProjectRef['config'], Promise<void>>();

  constructor(private readonly storage: Storage, private readonly now: () => number) {}

  /** Resolves once the holdout's phases match this configuration of the project (a failure is retried next time). */
  ensure(project: ProjectRef): Promise<void> {
    const holdout = project.config.recommendations?.holdout;
    if (holdout === undefined) return Promise.resolve();
    let done = this.seen.get(project.config);
    if (!done) {
      const at = this.now();
      done = this.storage.transaction(() => holdoutPhaseProgram(project.key, holdoutExperiment(holdout), at)).catch(() => {
        this.seen.delete(project.config);
      });
      this.seen.set(project.config, done);
    }
    return done;
  }
}

/** Records the step from the holdout's last recorded phase to `current` (its experiment for the share now), if any. */
export function* holdoutPhaseProgram(project: string, current: ExperienceConfig, at: number): SqlProgram<void> {
  const { rows } = yield op(
    'SELECT weights, version, ended_at FROM experiment_phases WHERE project = ? AND experience = ? ORDER BY phase DESC LIMIT 1',
    project, HOLDOUT_EXPERIMENT,
  );
  const last = rows[0];
  const write = { project, name: HOLDOUT_EXPERIMENT, after: current, at };
  if (last === undefined) {
    // The holdout's first phase, recorded so that a later share has weights to differ from: since its first exposure.
    if (phaseStep(null, current, false).start !== null) {
      yield op(
        `INSERT INTO experiment_phases (project, experience, phase, started_at, ended_at, weights, version, reason, randomization)
         VALUES (?, ?, 1, NULL, NULL, ?, 1, 'started', 0)`,
        project, HOLDOUT_EXPERIMENT, JSON.stringify(Object.fromEntries((current.variations ?? []).map((v) => [v.name, v.weight]))),
      );
    }
    return;
  }
  const weights = JSON.parse(String(last.weights)) as Record<string, number>;
  const before = holdoutExperiment(weights.holdout ?? 0);
  if (last.ended_at !== null) before.status = 'stopped';
  const step = phaseStep(before, current, true);
  if (!step.end && step.start === null) return;
  const version = Number(last.version);
  yield* recordPhaseStep({ ...write, before, beforeVersion: version, version: version + 1 });
}
