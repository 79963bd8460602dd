// What the results endpoint (`GET /v1/{org}/projects/{project}/experiences/{name}/results`) answers: the contract the
// service builds (server/results/) and `<svc-results>` reads (plugins/results/), in one place.

/** `ratio`: a per-unit numerator metric over a per-unit denominator metric (orders per session, revenue per order). */
export type MetricType = 'binomial' | 'count' | 'sum' | 'ratio';

/** Multiple-comparison correction across the answer's metrics × challengers. */
export type PValueCorrection = 'none' | 'holm-bonferroni' | 'benjamini-hochberg';

/** How the answer's intervals and p-values were computed (the experiment's settings). */
export interface ResultsAnalysis {
  /** The significance level: intervals are (1 − alpha), `significant` means p < alpha. */
  alpha: number;
  /**
   * `fixed-horizon`: Student t intervals and p-values, valid when read once, at the planned end. `sequential`:
   * always-valid confidence sequences and p-values (safe to read every day and stop early).
   */
  interval: 'fixed-horizon' | 'sequential';
  /**
   * The test that decides significance. Absent: `frequentist`, the only one the service runs today (every comparison
   * still carries the Bayesian `chanceToWin`, `risk` and `credibleInterval`, which then decide nothing).
   */
  engine?: 'frequentist' | 'bayesian';
  /** With `sequential`: the tuning parameter (the number of units the sequence is tightest around). */
  sequentialTuning?: number;
  /** The correction for many comparisons; a bandit's default (none set) is `holm-bonferroni` across its challengers. */
  correction: PValueCorrection;
  /** With `sequential`: what the tuning costs at the units the answer has. */
  sequential?: SequentialReach;
  /** When the experiment names guardrails: how each guardrail × challenger is tested for harm, and stopped on. */
  harmTest?: HarmTest;
}

/**
 * The guardrails' test of harm, whatever `interval` says (each challenger's `harm`), and the automatic stop's
 * correction across them.
 */
export interface HarmTest {
  /** gbstats' one-sided sequential test on the absolute difference: always valid, so safe to look at every day. */
  test: 'sequential-one-sided';
  /** Its tuning parameter: the experiment's `sequentialTuning` (default 5,000), sequential intervals or not. */
  tuning: number;
  /** The stop's correction across the family (`harm.pValueAdjusted` and `stops`; `pValue`, `harmed`: each test's own). */
  correction: 'holm-bonferroni';
  /** The family's size: the experiment's guardrails × challengers. */
  family: number;
}

/**
 * How wide the sequential intervals are at the answer's units against fixed-horizon ones: the price of checking
 * daily, largest far below the tuning.
 */
export interface SequentialReach {
  /** The tuning parameter: the units (control and challenger together) the confidence sequence is tightest around. */
  tuning: number;
  /** The units of the comparison: the control's and its challenger's (the challenger with the fewest, if several). */
  units: number;
  /**
   * The sequential interval's half-width over the fixed-horizon one's (z(1 − alpha/2)·σ/√units) at `units`; whatever
   * the metric, σ cancels. Null without units.
   */
  widthRatio: number | null;
}

/** A variation's share of the experiment: its configured weight (percent) and the units exposed to it. */
export interface VariationUnits {
  name: string;
  weight: number;
  units: number;
}

/**
 * The absolute difference of the means, mean − control mean, with its interval and p-value, adjusted and judged as
 * the relative comparisons are (a family of their own).
 */
export interface AbsoluteDifference {
  effect: number | null;
  ci: [number, number] | null;
  pValue: number | null;
  /** With a correction: `pValue` adjusted across the answer's metrics × challengers. */
  pValueAdjusted?: number | null;
  /** (pValueAdjusted ?? pValue) < alpha. */
  significant?: boolean;
}

/** CUPED's figures for one comparison: θ is estimated from the two variations compared. */
export interface CupedFigures {
  theta: number;
  /** Adjusted means, post − θ (pre − the two variations' pooled pre mean), and their adjusted stddevs. */
  mean: number;
  stddev: number | null;
  controlMean: number;
  controlStddev: number | null;
}

/**
 * One variation's numbers for one metric. Only non-control variations carry the comparison with the control
 * (`uplift` … `significant`); any statistic is `null` when it cannot be computed (no units, too few units, a control
 * mean of 0 for the relative figures).
 */
export interface VariationStats {
  name: string;
  units: number;
  /** The sum of unit values (converted units for `binomial`; the numerator's sum for `ratio`). */
  total: number;
  /** `ratio` only: the denominator's sum; `mean` is total / denominator. */
  denominator?: number;
  /** Raw (never CUPED-adjusted) mean and stddev of the unit values (capped when the metric is). */
  mean: number | null;
  stddev: number | null;
  /** Relative difference of the means, (mean − control mean) / |control mean|. */
  uplift?: number | null;
  /** (1 − alpha) interval of `uplift`: fixed-horizon or sequential as `analysis.interval` says. */
  ci?: [number, number] | null;
  pValue?: number | null;
  /** With a correction: the p-value adjusted across the answer's metrics × challengers. */
  pValueAdjusted?: number | null;
  /** (pValueAdjusted ?? pValue) < alpha. */
  significant?: boolean;
  /** Chance that this variation beats the control (for an `inverse` metric: that its mean is lower). */
  chanceToWin?: number | null;
  /** Expected relative loss of choosing this variation (for an `inverse` metric: of a rise). */
  risk?: number | null;
  /** Bayesian (1 − alpha) credible interval of `uplift`, flat prior, normal approximation. */
  credibleInterval?: [number, number] | null;
  absolute?: AbsoluteDifference;
  /** CUPED was applied to this comparison. */
  cuped?: CupedFigures;
  /** Guardrails: the one-sided sequential test that this variation harms the metric (safe to read every day). */
  harm?: GuardrailHarm;
  /**
   * A bandit's: the variation's mean stratified by the periods between reweights (each period weighted by its share
   * of all units, docs/bandit-statistics.md), which the comparisons above are computed from; `mean` stays raw.
   */
  stratified?: StratifiedMean;
}

/** A mean estimated stratum by stratum, and its standard error (null when it cannot be estimated). */
export interface StratifiedMean {
  mean: number | null;
  standardError: number | null;
}

/** A guardrail's test of harm: H1 the variation moves the metric the bad way (down, or up for an inverse metric). */
export interface GuardrailHarm {
  pValue: number | null;
  /**
   * pValue < alpha: the variation harms the guardrail, by this comparison alone. The automatic stop corrects across
   * the experiment's guardrails × challengers (`analysis.harmTest`): see `stops`.
   */
  harmed: boolean;
  /**
   * The overall section's only: pValue adjusted with Holm–Bonferroni across the automatic stop's family (every guardrail
   * the experiment names × challenger, a test not made counting as p = 1); null without a test.
   */
  pValueAdjusted?: number | null;
  /**
   * The overall section's only: pValueAdjusted < alpha, the automatic stop's rule. The guardrail watch stops the
   * running experiment on it when the answer is its current phase over all its units.
   */
  stops?: boolean;
}

/** How a metric's unit values were capped (winsorised from above). */
export interface MetricCap {
  type: 'absolute' | 'percentile';
  /** The configured value: an amount, or a quantile in (0, 1]. */
  value: number;
  /** The cap applied; for `percentile`, computed over the experiment's units (null: no units). */
  capValue: number | null;
}

export interface MetricResult {
  name: string;
  type: MetricType;
  /** The part it plays in the experiment, when the experiment names its metrics (goals, secondary, guardrails). */
  role?: MetricRole;
  /** Lower is better: chance to win and risk point that way. */
  inverse: boolean;
  /** `ratio` only: the metrics divided. */
  numerator?: string;
  denominator?: string;
  cap?: MetricCap;
  /** CUPED was asked for and adjusted at least one comparison (there was behaviour before first exposure). */
  cupedApplied: boolean;
  variations: VariationStats[];
}

/** The same analysis restricted to the units of one value of a dimension (`device: desktop`). */
export interface DimensionResult {
  name: string;
  value: string;
  units: number;
  variations: VariationUnits[];
  metrics: MetricResult[];
}

/**
 * One phase of an experiment: from a start (or a restart) or a change of its weights, traffic or targeting, to the
 * next such change or its stop. Numbered from 1, oldest first.
 */
export interface ResultsPhase {
  phase: number;
  /** ISO 8601; for a phase that began before phases were recorded, the experiment's first exposure (null: none yet). */
  startedAt: string | null;
  /** Absent while the phase goes on. */
  endedAt?: string;
  /** The weights of the phase, by variation name. */
  weights: Record<string, number>;
  /** The experience's version that began it. */
  version: number;
  /** `started`, `restarted`, or what changed (`weights 34/33/33 → 20/60/20`). */
  reason: string;
}

/** The part a metric plays in an experiment that names its metrics: the first goal is the primary one. */
export type MetricRole = 'goal' | 'secondary' | 'guardrail';

/**
 * The results as they stood at the end of one day (UTC) of the phase: over the units first exposed up to then, with
 * all their events. Each day's tests stand alone (no correction across days); only sequential intervals may be read
 * at every day.
 */
export interface SeriesPoint {
  /** `YYYY-MM-DD`. */
  date: string;
  units: number;
  variations: VariationUnits[];
  metrics: MetricResult[];
}

/** The answer of `GET …/experiences/{name}/results`. */
export interface ResultsAnswer {
  experience: string;
  control: string;
  /**
   * The phase answered (`?phase=`, default the current one): its units are those first exposed in it. With
   * `allPhases`, the current phase's number (the answer covers every phase).
   */
  phase: number;
  /**
   * `?phase=all`: the answer covers every phase, stratified by phase: each phase's comparisons estimated on its own
   * units and combined with inverse-variance weights; the split tested against what each phase's weights expect.
   */
  allPhases?: { phases: number; method: 'inverse-variance' };
  phases: ResultsPhase[];
  units: number;
  /** People exposed to more than one variation: left out of the units. */
  multipleExposures: number;
  /**
   * Sample ratio mismatch check: the units' split against the configured weights (weight-0 variations left out). A
   * bandit's (`expected: "per-period"`) is against the weights of each unit's period: each variation should have
   * Σ over periods of the period's units × its weight there (`bandit.expectedUnits`).
   */
  srm: { pValue: number | null; mismatch: boolean; expected?: 'per-period' };
  analysis: ResultsAnalysis;
  variations: VariationUnits[];
  metrics: MetricResult[];
  dimensions?: DimensionResult[];
  /** With `series=day`: one point per day from the phase's first exposure to its last, cumulative. */
  series?: SeriesPoint[];
  /**
   * A bandit (`allocation: "bandit"`): its reweights during the answered phase, oldest first. The phase's units are
   * analysed in the periods between them (before the first, between each two, after the last).
   */
  reweights?: ResultsReweight[];
  /** A bandit: how the answered phase was analysed under its moving weights. */
  bandit?: BanditAnalysis;
}

/**
 * How a bandit's phase is analysed: its units in the periods between reweights, each variation's mean estimated period
 * by period (`stratified`), and the split tested against each period's weights.
 */
export interface BanditAnalysis {
  /** The decision metric its weights follow. */
  metric: string;
  /** The phase's periods: before its first reweight, between each two, after the last. */
  periods: number;
  /** The strata the means are estimated in: consecutive periods merged until each variation has 2 units in each. */
  strata: number;
  /** The units each variation should have by the weights of each unit's period (what `srm` tests against). */
  expectedUnits: Record<string, number>;
}

/** One arm's posterior on the bandit's decision metric when a reweight drew the weights from it. */
export interface BanditArm {
  name: string;
  units: number;
  /** The posterior mean of the metric's per-unit value (stratified over the periods so far). */
  mean: number | null;
  /** The posterior's standard deviation of that mean. */
  stddev: number | null;
  /** The share of Thompson draws in which this arm was best, 0–1. */
  probabilityBest: number;
}

/**
 * Why a bandit's weights moved: `exploration` (set equal while it explores), `thompson` (drawn from the arms'
 * posteriors), `manual` (a person wrote them).
 */
export type ReweightReason = 'exploration' | 'thompson' | 'manual';

/** A bandit's reweight: when the service moved the weights, to what, and from which posteriors. */
export interface ResultsReweight {
  /** ISO 8601. */
  at: string;
  weights: Record<string, number>;
  arms: BanditArm[];
  /** Why these weights: `exploration` (equal, still exploring) or `thompson`. */
  reason?: ReweightReason;
}
