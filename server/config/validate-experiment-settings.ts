import { fail, finiteNumber, type Json } from './config-json.js';
import { checkBanditMetric, validateBanditSettings } from './bandit-settings.js';
import type { ExperienceConfig, MetricConfig, ProjectConfig } from './config-types.js';
import { reservedNames } from './recommendations-holdout.js';

// What only an experiment (an experience with variations) may set: how its results are computed (alpha, sequential,
// correction), what it is judged by (goals, secondary, guardrails) and when it stops by itself (stopOnSrm).

const CORRECTIONS = ['none', 'holm-bonferroni', 'benjamini-hochberg'];

/** An experiment's metric lists, in the order results show them: the first goal is the primary one. */
export const METRIC_ROLES = [
  { field: 'goals', role: 'goal' },
  { field: 'secondary', role: 'secondary' },
  { field: 'guardrails', role: 'guardrail' },
] as const;

const EXPERIMENT_ONLY = [
  'alpha', 'sequential', 'sequentialTuning', 'correction', 'goals', 'secondary', 'guardrails', 'stopOnSrm', 'randomization',
  'allocation', 'bandit',
];


/** An experiment's analysis settings and metric lists (their shape; the names are checked against the project's). */
export function validateExperimentSettings(exp: Json, path: string): void {
  const given = EXPERIMENT_ONLY.filter((k) => exp[k] !== undefined);
  if (given.length > 0 && exp.variations === undefined) {
    fail(`${path}.${given[0] as string}`, 'is only allowed for an experiment (with variations)');
  }
  if (exp.alpha !== undefined) {
    const alpha = finiteNumber(exp.alpha, `${path}.alpha`);
    if (!(alpha > 0 && alpha < 0.5)) fail(`${path}.alpha`, 'must be a number > 0 and < 0.5 (0.05 for 95% intervals)');
  }
  if (exp.sequential !== undefined && typeof exp.sequential !== 'boolean') fail(`${path}.sequential`, 'must be true or false');
  if (exp.sequentialTuning !== undefined && !(finiteNumber(exp.sequentialTuning, `${path}.sequentialTuning`) >= 1)) {
    fail(`${path}.sequentialTuning`, 'must be a number of units >= 1 (default 5000)');
  }
  if (exp.correction !== undefined && !CORRECTIONS.includes(exp.correction as string)) {
    fail(`${path}.correction`, `must be one of ${CORRECTIONS.join(', ')}`);
  }
  if (exp.stopOnSrm !== undefined && typeof exp.stopOnSrm !== 'boolean') fail(`${path}.stopOnSrm`, 'must be true or false');
  if (exp.randomization !== undefined && !(Number.isInteger(exp.randomization) && (exp.randomization as number) >= 1)) {
    fail(`${path}.randomization`, 'must be a whole number >= 1 (the service counts re-randomisations)');
  }
  validateBanditSettings(exp, path);
  const seen = new Map<string, string>();
  for (const { field } of METRIC_ROLES) {
    const list = exp[field];
    if (list === undefined) continue;
    if (!Array.isArray(list)) fail(`${path}.${field}`, 'must be an array of metric names');
    list.forEach((name, i) => {
      const at = `${path}.${field}[${i}]`;
      if (typeof name !== 'string' || name === '') fail(at, 'must be a metric name');
      const first = seen.get(name);
      // One metric plays one part: a goal that is also a guardrail would be counted twice in a correction's family.
      if (first !== undefined) fail(at, `"${name}" is already listed at ${first}`);
      seen.set(name, at);
    });
  }
}

/**
 * Every metric an experiment names is one of the project's.
 * @throws ConfigError at the first unknown name, e.g. `…experiences[0].goals[1]: no metric named "buy" in metrics`.
 */
export function checkExperimentMetrics(project: { experiences?: ExperienceConfig[]; metrics?: MetricConfig[] }, path: string): void {
  // A project with a recommendations holdout is served with the holdout's metrics too: a recommendations experiment
  // may be judged by them.
  const names = new Set([...(project.metrics ?? []).map((m) => m.name), ...reservedNames(project as ProjectConfig).metrics]);
  (project.experiences ?? []).forEach((experience, i) => {
    for (const { field } of METRIC_ROLES) {
      (experience[field] ?? []).forEach((name, j) => {
        if (!names.has(name)) fail(`${path}.experiences[${i}].${field}[${j}]`, `no metric named "${name}" in metrics`);
      });
    }
    checkBanditMetric(experience, `${path}.experiences[${i}]`, project.metrics);
  });
}

/** The names of the metrics an experiment names (goals, secondary, guardrails), in that order. */
export function experimentMetricNames(experience: ExperienceConfig): string[] {
  return METRIC_ROLES.flatMap(({ field }) => experience[field] ?? []);
}
