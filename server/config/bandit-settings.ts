import { fail, finiteNumber, isObject, type Json } from './config-json.js';
import type { BanditSettings, ExperienceConfig, MetricConfig } from './config-types.js';

// A bandit's settings: their shape, their defaults, and the checks that need the experiment around them.

/** A bandit's settings with every default filled in. */
export interface ResolvedBandit {
  metric: string;
  explorationUnits: number;
  explorationHours: number;
  cadenceMinutes: number;
  minShare: number;
}

/** GrowthBook's defaults: an exploratory day with equal weights, then a reweight every hour; each arm keeps 1 %. */
export const BANDIT_DEFAULTS = { explorationUnits: 0, explorationHours: 24, cadenceMinutes: 60, minShare: 1 } as const;

/** Reweighting more often than this gives the posterior nothing new to learn from and the storage writes for nothing. */
export const MIN_CADENCE_MINUTES = 5;

const FIELDS = ['metric', 'explorationUnits', 'explorationHours', 'cadenceMinutes', 'minShare'];

/**
 * `allocation` and `bandit` of one experiment (their shape; the metric is checked against its goals by
 * checkBanditMetric once the project's metrics are known).
 * @throws ConfigError naming the field, e.g. `…experiences[0].bandit.cadenceMinutes: must be at least 5 (minutes)`.
 */
export function validateBanditSettings(exp: Json, path: string): void {
  if (exp.allocation !== undefined && exp.allocation !== 'fixed' && exp.allocation !== 'bandit') {
    fail(`${path}.allocation`, 'must be "fixed" or "bandit"');
  }
  if (exp.bandit === undefined) return;
  if (exp.allocation !== 'bandit') fail(`${path}.bandit`, 'is only allowed with "allocation": "bandit"');
  const at = `${path}.bandit`;
  if (!isObject(exp.bandit)) fail(at, 'must be an object');
  const bandit = exp.bandit;
  const unknown = Object.keys(bandit).find((k) => !FIELDS.includes(k));
  if (unknown !== undefined) fail(`${at}.${unknown}`, `is not a bandit setting (${FIELDS.join(', ')})`);
  if (bandit.metric !== undefined && (typeof bandit.metric !== 'string' || bandit.metric === '')) fail(`${at}.metric`, 'must be a metric name');
  if (bandit.explorationUnits !== undefined) {
    const units = finiteNumber(bandit.explorationUnits, `${at}.explorationUnits`);
    if (!(Number.isInteger(units) && units >= 0)) fail(`${at}.explorationUnits`, 'must be a whole number of units >= 0');
  }
  if (bandit.explorationHours !== undefined && !(finiteNumber(bandit.explorationHours, `${at}.explorationHours`) >= 0)) {
    fail(`${at}.explorationHours`, 'must be a number of hours >= 0');
  }
  if (bandit.cadenceMinutes !== undefined && !(finiteNumber(bandit.cadenceMinutes, `${at}.cadenceMinutes`) >= MIN_CADENCE_MINUTES)) {
    fail(`${at}.cadenceMinutes`, `must be at least ${MIN_CADENCE_MINUTES} (minutes)`);
  }
  if (bandit.minShare !== undefined) {
    const share = finiteNumber(bandit.minShare, `${at}.minShare`);
    if (!(share >= 0 && share < 100)) fail(`${at}.minShare`, 'must be a percentage >= 0 and < 100');
  }
  const arms = Array.isArray(exp.variations) ? exp.variations.length : 0;
  const floor = (bandit.minShare as number | undefined) ?? BANDIT_DEFAULTS.minShare;
  if (arms * floor > 100) fail(`${at}.minShare`, `${floor} % × ${arms} variations is over 100 %`);
}

/**
 * A bandit decides by one of the experiment's goals: `bandit.metric`, or the first goal when it names none; a mean per
 * unit (binomial, count or sum), not a ratio, whose arms' posteriors would be ratios of two estimates. `metrics` are the
 * project's.
 * @throws ConfigError at `…bandit.metric` (or `…goals` when the bandit has no goal to default to).
 */
export function checkBanditMetric(experience: ExperienceConfig, path: string, metrics: readonly MetricConfig[] = []): void {
  if (experience.allocation !== 'bandit') return;
  const goals = experience.goals ?? [];
  const metric = experience.bandit?.metric;
  if (metric === undefined && goals.length === 0) fail(`${path}.goals`, 'a bandit needs a goal to decide by (or bandit.metric naming one of its goals)');
  if (metric !== undefined && !goals.includes(metric)) {
    fail(`${path}.bandit.metric`, `"${metric}" is not one of the experiment's goals (${goals.join(', ') || 'none'})`);
  }
  const decision = metric ?? (goals[0] as string);
  if (metrics.find((m) => m.name === decision)?.type === 'ratio') {
    fail(`${path}.bandit.metric`, `"${decision}" is a ratio metric: a bandit decides by a binomial, count or sum metric (a goal that is one)`);
  }
}

/** A bandit experiment's settings with the defaults filled in; null when the experiment is not a bandit. */
export function resolveBandit(experience: ExperienceConfig): ResolvedBandit | null {
  if (experience.allocation !== 'bandit') return null;
  const given: BanditSettings = experience.bandit ?? {};
  return {
    metric: given.metric ?? (experience.goals ?? [])[0] ?? '',
    explorationUnits: given.explorationUnits ?? BANDIT_DEFAULTS.explorationUnits,
    explorationHours: given.explorationHours ?? BANDIT_DEFAULTS.explorationHours,
    cadenceMinutes: given.cadenceMinutes ?? BANDIT_DEFAULTS.cadenceMinutes,
    minShare: given.minShare ?? BANDIT_DEFAULTS.minShare,
  };
}
