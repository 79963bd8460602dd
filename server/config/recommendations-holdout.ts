import type { ExperienceConfig, MetricConfig, ProjectConfig } from './config-types.js';

// The always-on holdout of recommendations: with `"recommendations": {"holdout": 5}` a project's visitors are split,
// sticky per person like any experiment's, into a `holdout` share that every feed answers with no products and the
// rest (`shown`). The split is an ordinary experiment of the project, which the service adds to the configuration it
// serves (withHoldout), so that assignment, exposures, phases and results are those of every experiment: its results
// say what recommendations add in revenue per visitor, with an interval.

export const HOLDOUT_EXPERIMENT = 'recommendations-holdout';
export const HOLDOUT_VARIATION = 'holdout';
export const SHOWN_VARIATION = 'shown';
/** What every feed answers a person in the holdout (the element shows its `empty` state). */
export const HOLDOUT_ANSWER: Readonly<{ products: readonly never[]; holdout: true }> = Object.freeze({ products: Object.freeze([]), holdout: true });

/** The largest share a project may hold out, in percent: beyond it the holdout costs more than it measures. */
export const MAX_HOLDOUT = 50;

/** The holdout's goals, in order: revenue per visitor (the primary one), orders per visitor, order value. */
export const HOLDOUT_METRICS = ['recommendations-revenue', 'recommendations-orders', 'recommendations-order-value'] as const;

/**
 * The holdout's metrics: revenue (Σ price × quantity of the person's `Product ordered` lines; in `currency` only when
 * the project names one), orders (distinct `orderId`s) and their ratio. CUPED by the same metrics in the 14 days
 * before a person's first exposure, where such a pre-period exists.
 */
export function holdoutMetrics(currency?: string): MetricConfig[] {
  const [revenue, orders, orderValue] = HOLDOUT_METRICS;
  return [
    { name: revenue, event: 'Product ordered', type: 'sum', value: 'price*quantity', cuped: true, ...(currency !== undefined ? { where: { currency } } : {}) },
    { name: orders, event: 'Product ordered', type: 'count', distinct: 'orderId', cuped: true },
    { name: orderValue, type: 'ratio', numerator: revenue, denominator: orders },
  ];
}

/**
 * The holdout's experiment for a share of `holdout` percent. A share of 0 stops it (nobody is assigned or exposed, every
 * feed answers as without a holdout); a share set again restarts it in a new phase, as any change of its weights does.
 * Sequential: a holdout runs for ever and its results are read whenever someone looks.
 */
export function holdoutExperiment(holdout: number): ExperienceConfig {
  return {
    name: HOLDOUT_EXPERIMENT,
    variations: [
      { name: HOLDOUT_VARIATION, weight: holdout, body: { holdout: true } },
      { name: SHOWN_VARIATION, weight: 100 - holdout, body: {} },
    ],
    goals: [...HOLDOUT_METRICS],
    sequential: true,
    ...(holdout === 0 ? { status: 'stopped' as const } : {}),
  };
}

/** The project as the service serves it: with the holdout's experiment and metrics when it sets a holdout. */
export function withHoldout(project: ProjectConfig): ProjectConfig {
  const settings = project.recommendations;
  if (settings?.holdout === undefined) return project;
  return {
    ...project,
    experiences: [...(project.experiences ?? []), holdoutExperiment(settings.holdout)],
    metrics: [...(project.metrics ?? []), ...holdoutMetrics(settings.currency)],
  };
}

/** The names a project with a holdout may not give its own experiences or metrics: the service's own use them. */
export function reservedNames(project: ProjectConfig): { experiences: string[]; metrics: string[] } {
  if (project.recommendations?.holdout === undefined) return { experiences: [], metrics: [] };
  return { experiences: [HOLDOUT_EXPERIMENT], metrics: [...HOLDOUT_METRICS] };
}
