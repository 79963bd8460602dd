// What an experiment's results and its plan answer (`…/experiences/{name}/results`, `…/plan`).
import Type from 'typebox';
import { Count, Interval, IsoTime, Nullable } from './schema-parts.js';

const N = () => Nullable(Type.Number());
const MetricTypeSchema = Type.Union(['binomial', 'count', 'sum', 'ratio'].map((t) => Type.Literal(t)));
const Correction = Type.Union([Type.Literal('none'), Type.Literal('holm-bonferroni'), Type.Literal('benjamini-hochberg')]);
const Weights = Type.Record(Type.String(), Type.Number(), { description: 'Percent per variation.' });

const VariationUnits = Type.Object({ name: Type.String(), weight: Type.Number(), units: Count() });

const VariationStats = Type.Object({
  name: Type.String(),
  units: Count(),
  total: Type.Number({ description: 'The metric summed over the units (a ratio: its numerator).' }),
  denominator: Type.Optional(Type.Number()),
  mean: N(),
  stddev: N(),
  uplift: Type.Optional(N()),
  ci: Type.Optional(Nullable(Interval)),
  pValue: Type.Optional(N()),
  pValueAdjusted: Type.Optional(N()),
  significant: Type.Optional(Type.Boolean()),
  chanceToWin: Type.Optional(N()),
  risk: Type.Optional(N()),
  credibleInterval: Type.Optional(Nullable(Interval)),
  absolute: Type.Optional(Type.Object({
    effect: N(), ci: Nullable(Interval), pValue: N(), pValueAdjusted: Type.Optional(N()), significant: Type.Optional(Type.Boolean()),
  })),
  cuped: Type.Optional(Type.Object({
    theta: Type.Number(), mean: Type.Number(), stddev: N(), controlMean: Type.Number(), controlStddev: N(),
  }, { additionalProperties: true })),
  harm: Type.Optional(Type.Object({ pValue: N(), harmed: Type.Boolean() }, { additionalProperties: true })),
  stratified: Type.Optional(Type.Object({ mean: N(), standardError: N() }, { additionalProperties: true })),
}, { description: 'A variation\'s figures for one metric; challengers also compare with the control.' });

const MetricResult = Type.Object({
  name: Type.String(),
  type: MetricTypeSchema,
  role: Type.Optional(Type.Union([Type.Literal('goal'), Type.Literal('secondary'), Type.Literal('guardrail')])),
  inverse: Type.Boolean(),
  numerator: Type.Optional(Type.String()),
  denominator: Type.Optional(Type.String()),
  cap: Type.Optional(Type.Object({ type: Type.Union([Type.Literal('absolute'), Type.Literal('percentile')]), value: Type.Number(), capValue: N() }, { additionalProperties: true })),
  cupedApplied: Type.Boolean(),
  variations: Type.Array(VariationStats),
}, { $id: 'MetricResult' });

const BanditArm = Type.Object({ name: Type.String(), units: Count(), mean: N(), stddev: N(), probabilityBest: Type.Number() });

export const ResultsQuery = Type.Object({
  metrics: Type.Optional(Type.String({ description: 'Comma-separated metric names (default: the experiment\'s, else every metric).' })),
  from: Type.Optional(Type.String({ description: 'ISO 8601 or epoch ms: only exposures from then.' })),
  to: Type.Optional(Type.String({ description: 'ISO 8601 or epoch ms: only exposures before then.' })),
  dimension: Type.Optional(Type.String({ description: 'Break down by `device`, `browser`, `source`, `country`… or `attribute:<name>`.' })),
  phase: Type.Optional(Type.String({ description: 'A phase number, or `all` (pooled by inverse variance). Default: the current phase.' })),
  series: Type.Optional(Type.Literal('day', { description: 'Also the cumulative figures day by day.' })),
});

export const ResultsAnswer = Type.Object({
  experience: Type.String(),
  control: Type.String({ description: 'The first variation.' }),
  phase: Type.Integer({ description: 'The phase read (0 when `phase=all`).' }),
  allPhases: Type.Optional(Type.Object({ phases: Type.Integer(), method: Type.Literal('inverse-variance') })),
  phases: Type.Array(Type.Object({
    phase: Type.Integer(), startedAt: Nullable(IsoTime()), endedAt: Type.Optional(IsoTime()), weights: Weights, version: Type.Integer(), reason: Type.String(),
  }, { additionalProperties: true })),
  units: Count(),
  multipleExposures: Count('Units exposed to more than one variation (left out).'),
  srm: Type.Object({ pValue: N(), mismatch: Type.Boolean(), expected: Type.Optional(Type.Literal('per-period')) }, { description: 'Sample-ratio mismatch test.' }),
  analysis: Type.Object({
    alpha: Type.Number(),
    interval: Type.Union([Type.Literal('fixed-horizon'), Type.Literal('sequential')]),
    engine: Type.Optional(Type.Union([Type.Literal('frequentist'), Type.Literal('bayesian')])),
    sequentialTuning: Type.Optional(Type.Number()),
    correction: Correction,
    sequential: Type.Optional(Type.Object({ tuning: Type.Number(), units: Type.Number(), widthRatio: N() }, { additionalProperties: true })),
    harmTest: Type.Optional(Type.Object({
      test: Type.Literal('sequential-one-sided'), tuning: Type.Number(), correction: Type.Literal('holm-bonferroni'), family: Type.Integer(),
    }, { additionalProperties: true })),
  }, { additionalProperties: true }),
  variations: Type.Array(VariationUnits),
  metrics: Type.Array(MetricResult),
  dimensions: Type.Optional(Type.Array(Type.Object({
    name: Type.String(), value: Type.String(), units: Count(), variations: Type.Array(VariationUnits), metrics: Type.Array(MetricResult),
  }))),
  series: Type.Optional(Type.Array(Type.Object({
    date: Type.String(), units: Count(), variations: Type.Array(VariationUnits), metrics: Type.Array(MetricResult),
  }))),
  reweights: Type.Optional(Type.Array(Type.Object({
    at: IsoTime(), weights: Weights, arms: Type.Array(BanditArm),
    reason: Type.Optional(Type.Union([Type.Literal('exploration'), Type.Literal('thompson'), Type.Literal('manual')])),
  }))),
  bandit: Type.Optional(Type.Object({
    metric: Type.String(), periods: Type.Integer(), strata: Type.Integer(), expectedUnits: Type.Record(Type.String(), Type.Number()),
  }, { additionalProperties: true })),
});

const PlanVariation = Type.Object({ name: Type.String(), weight: Type.Number(), units: Nullable(Type.Integer()) });
const PlanFigure = Type.Object({ units: Nullable(Type.Integer()), variations: Type.Array(PlanVariation), days: N() });

export const PlanQuery = Type.Object({
  metric: Type.Optional(Type.String({ description: 'Default: the experiment\'s first goal.' })),
  mde: Type.String({ description: 'The relative change to detect: `0.03` or `3%`.' }),
  days: Type.Optional(Type.Integer({ minimum: 1, description: 'What a run of that many days can detect.' })),
  endAt: Type.Optional(Type.String({ description: 'ISO 8601: what a run until then can detect (not with `days`).' })),
});

export const PlanAnswer = Type.Object({
  experience: Type.String(),
  metric: Type.String(),
  metricType: MetricTypeSchema,
  mde: Type.Number(),
  interval: Type.Union([Type.Literal('fixed-horizon'), Type.Literal('sequential')]),
  units: Nullable(Type.Integer()),
  days: N(),
  variations: Type.Array(PlanVariation),
  fixedHorizon: PlanFigure,
  sequential: PlanFigure,
  gap: Type.Optional(Type.Union([Type.Literal('no-traffic'), Type.Literal('zero-mean'), Type.Literal('no-variance')])),
  analysis: Type.Object({
    alpha: Type.Number(), power: Type.Number(), correction: Correction, comparisons: Type.Integer(), alphaPerComparison: Type.Number(), sequentialTuning: Type.Number(),
  }),
  baseline: Type.Object({
    from: IsoTime(), to: IsoTime(), days: Type.Number(), units: Count(), unitsPerDay: Type.Number(), mean: N(), stddev: N(),
  }),
  trafficShare: Type.Number(),
  detectable: Type.Optional(Type.Object({
    byDate: IsoTime(), units: Type.Number(), unitsSoFar: Type.Number(), unitsPerDay: Type.Number(), mde: N(), fixedHorizonMde: N(), sequentialMde: N(),
  })),
});
