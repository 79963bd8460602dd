import type { ExperienceConfig, MetricConfig } from '../config/config-types.js';
import { ServiceError } from '../errors/service-error.js';
import type { Storage } from '../storage/storage.js';
import type { PlanAnswer } from '../../wire/plan-answer.js';
import { buildPlan, type PlanInput } from './plan-figures.js';
import { PLAN_READ, type PlanRead } from './plan-program.js';
import type { PlanQuery } from './plan-query.js';
import { effectInRange } from './power.js';

/**
 * Plans an experiment: reads the metric's baseline (and a running experiment's units so far) as the storage places
 * PLAN_READ, then computes the figures.
 * @example const plans = new PlanService(storage, Date.now); await plans.plan('acme/shop', hero, query, project.metrics);
 */
export class PlanService {
  constructor(private readonly storage: Storage, private readonly now: () => number) {}

  /** @throws ServiceError `invalid_request` (`mde`) for a change that takes a conversion rate past 100 % (or below 0). */
  async plan(project: string, experience: PlanInput['experience'], query: PlanQuery, projectMetrics: readonly MetricConfig[]): Promise<PlanAnswer> {
    const now = this.now();
    const read: PlanRead = { planned: { metric: query.metric, parts: query.parts }, now };
    if (isRunning(experience)) read.running = { name: experience.name, variations: experience.variations.map((v) => v.name) };
    const facts = await this.storage.place(PLAN_READ, project, read);
    const { mean } = facts.baseline;
    const effect = (query.metric.inverse ? -1 : 1) * query.mde;
    if (query.metric.type === 'binomial' && mean !== null && !effectInRange({ mean, variance: 0, binomial: true }, effect)) {
      const rate = `${(mean * 100).toPrecision(3)} %`;
      throw new ServiceError('invalid_request', `mde: a change of ${query.mde * 100} % takes ${query.metric.name}'s rate of ${rate} out of 0–100 %`);
    }
    return buildPlan({ experience, query, facts, now, projectMetrics: projectMetrics.length });
  }
}

/** Served now: its units so far count, and what it can detect by its end is part of the plan. */
function isRunning(experience: ExperienceConfig): boolean {
  return (experience.status ?? 'running') === 'running';
}
