// What the planner (`GET /v1/{org}/projects/{project}/experiences/{name}/plan?metric=&mde=`) answers: the contract the
// service builds (server/planning/) and the console's Plan page reads (admin/plan-page.ts), in one place. The formulas
// are in docs/planning.md.

import type { MetricType, PValueCorrection } from './results-answer.js';

/** The interval an experiment's results use, which decides which of the two figures is the plan's own. */
export type PlanInterval = 'fixed-horizon' | 'sequential';

/** Why no figure could be computed: nobody active in the window, a metric whose mean is 0, or one that never varies. */
export type PlanGap = 'no-traffic' | 'zero-mean' | 'no-variance';

/** A variation's share of the plan: its weight (percent) and the units it needs. */
export interface PlanVariation {
  name: string;
  weight: number;
  /** Null when the plan has no figure (`gap`). */
  units: number | null;
}

/** One test's figure: the units in all and per variation for 80 % power, and the days the project's traffic takes. */
export interface PlanFigure {
  units: number | null;
  variations: PlanVariation[];
  /** Null without a figure, or when the experiment takes no traffic (`traffic: 0`). */
  days: number | null;
}

/** The metric's recent baseline, from the project's own events. */
export interface PlanBaseline {
  /** ISO 8601: the window read is [from, to). */
  from: string;
  to: string;
  /** The window's length in days that `unitsPerDay` divides by (the project's age, when it is younger). */
  days: number;
  /** People with at least one event received in the window. */
  units: number;
  unitsPerDay: number;
  /** The metric's mean per person over the window (a ratio's Σ numerator / Σ denominator); null without people. */
  mean: number | null;
  /** The unit standard deviation (binomial sqrt(m(1 − m)); a ratio's by the delta method); null without people. */
  stddev: number | null;
}

/** How the figures were tested: the experiment's analysis settings. */
export interface PlanAnalysis {
  alpha: number;
  /** The power asked for: 0.8. */
  power: number;
  /** The experiment's correction; with one, each comparison is planned at alpha / comparisons (Bonferroni). */
  correction: PValueCorrection;
  /** Challengers × goals when the experiment corrects; 1 otherwise. */
  comparisons: number;
  alphaPerComparison: number;
  /** The sequential tests' tuning parameter. */
  sequentialTuning: number;
}

/** What a running experiment (or a run of `days`) can detect by its end. */
export interface PlanDetectable {
  /** ISO 8601: the planned end. */
  byDate: string;
  /** The units expected by then: those so far, plus the daily rate for the days left. */
  units: number;
  unitsSoFar: number;
  /** The experiment's own daily rate of new units when it has run a day, else the project's times its traffic share. */
  unitsPerDay: number;
  /** The smallest relative change with 80 % power under the experiment's interval; null when none is in reach. */
  mde: number | null;
  fixedHorizonMde: number | null;
  sequentialMde: number | null;
}

/** The planner's answer. */
export interface PlanAnswer {
  experience: string;
  metric: string;
  metricType: MetricType;
  /** The relative change planned for (0.03 = 3 %), in the metric's good direction (down for an `inverse` metric). */
  mde: number;
  /** The experiment's interval: `units`, `days` and `variations` are that test's figure. */
  interval: PlanInterval;
  units: number | null;
  days: number | null;
  variations: PlanVariation[];
  fixedHorizon: PlanFigure;
  sequential: PlanFigure;
  /** Present when no figure could be computed. */
  gap?: PlanGap;
  analysis: PlanAnalysis;
  baseline: PlanBaseline;
  /** The share of the project's people the experiment enrols: traffic × its namespace's range. */
  trafficShare: number;
  /** A running experiment (or any, with `days` or `endAt`): what it can detect by its planned end. */
  detectable?: PlanDetectable;
}
