// The management API's items (an experience, a metric, a feed) as written in svc.config.json and through the API, the
// version, source and status the API adds to what it answers, and the audit log's entries. Written once: the service's
// configuration types (server/config/config-types.ts) and the console's (admin/) are these schemas' types (Static).
import Type, { type Static } from 'typebox';
import type { AutomaticStop as WireAutomaticStop } from '../automatic-stop.js';
import type { ChooseDevice } from '../choose.js';
import { FEED_STRATEGIES } from '../feed-preview.js';
import type { MetricType as WireMetricType, PValueCorrection as WirePValueCorrection } from '../results-answer.js';
import { FreeObject, Interval, IsoTime, Nullable } from './schema-parts.js';

const Strategy = Type.Enum(FEED_STRATEGIES);

export const AutomaticStopSchema = Type.Object({
  rule: Type.Union([Type.Literal('guardrail'), Type.Literal('srm')]),
  at: IsoTime(),
  metric: Type.Optional(Type.String()),
  variation: Type.Optional(Type.String()),
  uplift: Type.Optional(Nullable(Type.Number())),
  ci: Type.Optional(Nullable(Interval)),
  pValue: Type.Optional(Nullable(Type.Number())),
  pValueAdjusted: Type.Optional(Type.Number()),
  familySize: Type.Optional(Type.Integer()),
  correction: Type.Optional(Type.Literal('holm-bonferroni')),
  units: Type.Optional(Type.Integer()),
  phase: Type.Optional(Type.Integer()),
  srmPValue: Type.Optional(Nullable(Type.Number())),
}, { $id: 'AutomaticStop', description: 'Why the service stopped the experiment by itself: a harmed guardrail or a sample-ratio mismatch.' });

const DeviceSchema = Type.Union([Type.Literal('mobile'), Type.Literal('desktop')]);
export type Device = Static<typeof DeviceSchema>;

const StatusSchema = Type.Union([Type.Literal('draft'), Type.Literal('running'), Type.Literal('stopped')], {
  description: '`draft`: not served; `running` (the default): served; `stopped`: served to nobody, unless `winner` is set.',
});
export type ExperienceStatus = Static<typeof StatusSchema>;

const Correction = (description: string) =>
  Type.Union([Type.Literal('none'), Type.Literal('holm-bonferroni'), Type.Literal('benjamini-hochberg')], { description });
export type PValueCorrection = Static<ReturnType<typeof Correction>>;

export const VariationSchema = Type.Object({
  name: Type.String(),
  weight: Type.Number({ description: 'A share of 100: all weights of an experience sum to 100.' }),
  body: FreeObject(),
}, { description: 'One variation of an experiment.' });
export type Variation = Static<typeof VariationSchema>;

export const BanditSettingsSchema = Type.Object({
  metric: Type.Optional(Type.String({ description: 'The decision metric: one of the experiment\'s goals (default: the first goal).' })),
  explorationUnits: Type.Optional(Type.Integer({ description: 'Equal weights until this many units are exposed (default 0).' })),
  explorationHours: Type.Optional(Type.Number({ description: 'Equal weights for this many hours after the experiment starts (default 0).' })),
  cadenceMinutes: Type.Optional(Type.Number({ description: 'Minutes between reweights, at least 5 (default 60).' })),
  minShare: Type.Optional(Type.Number({ description: 'Every variation keeps at least this share of traffic, percent (default 1; arms × minShare ≤ 100).' })),
}, { description: 'A bandit\'s settings: what it learns from and how fast.' });
export type BanditSettings = Static<typeof BanditSettingsSchema>;

const experimentOnly = (text: string) => `Experiments only: ${text}`;

export const ExperienceItemSchema = Type.Object({
  name: Type.String(),
  group: Type.Optional(Type.String()),
  devices: Type.Optional(Type.Array(DeviceSchema, { description: 'Served only to these devices; absent: every device.' })),
  traffic: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Percent of the eligible visitors enrolled (default 100).' })),
  stickiness: Type.Optional(Type.Union([Type.Literal('profile'), Type.Literal('session')], {
    description: 'The unit of assignment (default `profile`); `session` needs `sessionId` in the request.',
  })),
  variations: Type.Optional(Type.Array(VariationSchema, { description: 'An experiment\'s variations (weighted, assigned deterministically, stored on first assignment).' })),
  body: Type.Optional(FreeObject('Content served to everyone who matches (an experience without variations).')),
  feed: Type.Optional(Type.Integer({ description: 'A feed-backed experience: the feed id; its body is `{products:[…]}` from that feed.' })),
  limit: Type.Optional(Type.Integer()),
  condition: Type.Optional(FreeObject('Targeting: a MongoDB-style condition over request and profile attributes (GrowthBook semantics).')),
  namespace: Type.Optional(Type.Tuple([Type.String(), Type.Number(), Type.Number()], {
    description: 'Mutually exclusive experiments: `[namespaceId, start, end]` with 0 ≤ start < end ≤ 1.',
  })),
  seed: Type.Optional(Type.String({ description: 'The hash seed; default the experience\'s name.' })),
  hashVersion: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2)], {
    description: 'The assignment hash version (GrowthBook\'s; default 2), kept per experience so nobody moves.',
  })),
  status: Type.Optional(StatusSchema),
  winner: Type.Optional(Type.String({ description: 'With `status: "stopped"`: the variation everyone is served from then on, without exposures.' })),
  alpha: Type.Optional(Type.Number({ description: experimentOnly('the results\' significance level, 0 < alpha < 0.5 (default 0.05).') })),
  sequential: Type.Optional(Type.Boolean({ description: experimentOnly('always-valid sequential intervals and p-values (default false: fixed-horizon).') })),
  sequentialTuning: Type.Optional(Type.Number({ description: experimentOnly('the sequential tests\' tuning, ≥ 1 (default 5,000).') })),
  correction: Type.Optional(Correction(experimentOnly('the correction of p-values across the results\' metrics × challengers (default `none`).'))),
  goals: Type.Optional(Type.Array(Type.String(), { description: experimentOnly('the metrics it is judged by; the first is the primary one.') })),
  secondary: Type.Optional(Type.Array(Type.String(), { description: experimentOnly('metrics shown beside the goals, which decide nothing.') })),
  guardrails: Type.Optional(Type.Array(Type.String(), { description: experimentOnly('metrics no variation may harm; a significant harm stops it.') })),
  stopOnSrm: Type.Optional(Type.Boolean({ description: experimentOnly('a sample-ratio mismatch in the current phase stops it too (default false: it warns).') })),
  stoppedBy: Type.Optional(AutomaticStopSchema),
  randomization: Type.Optional(Type.Integer({
    description: 'The service\'s: how many times the phases re-randomised it (`?rerandomize=true`), each with a new seed and new first assignments.',
  })),
  allocation: Type.Optional(Type.Union([Type.Literal('fixed'), Type.Literal('bandit')], {
    description: experimentOnly('`fixed` (the default): the weights as set; `bandit`: the service moves them towards the best variation on `bandit.metric`.'),
  })),
  bandit: Type.Optional(BanditSettingsSchema),
}, { $id: 'ExperienceItem', description: 'An experience as svc.config.json holds it: an experiment (`variations`), content (`body`) or a feed (`feed`).' });
export type ExperienceItem = Static<typeof ExperienceItemSchema>;

export const MetricCapSchema = Type.Object({
  type: Type.Union([Type.Literal('absolute'), Type.Literal('percentile')]),
  value: Type.Number(),
  ignoreZeros: Type.Optional(Type.Boolean({ description: '`percentile` only: the quantile is taken over the units whose value is not 0.' })),
}, { description: 'Winsorising unit values from above: at `value`, or at the `value` quantile (0 < value ≤ 1) of the units\'.' });
export type MetricCap = Static<typeof MetricCapSchema>;

export const MetricTypeSchema = Type.Enum(['binomial', 'count', 'sum', 'ratio'], {
  description: 'Per unit: `binomial` 1 if it has such an event; `count` how many; `sum` a data field added up; `ratio` one metric over another.',
});

export const MetricItemSchema = Type.Object({
  name: Type.String(),
  event: Type.Optional(Type.String({ description: 'Every type but `ratio`: the events counted (an event\'s `name`, exactly).' })),
  type: MetricTypeSchema,
  numerator: Type.Optional(Type.String({ description: '`ratio`: the (non-ratio) metric divided.' })),
  denominator: Type.Optional(Type.String({ description: '`ratio`: the (non-ratio) metric it is divided by.' })),
  inverse: Type.Optional(Type.Boolean({ description: 'Lower is better (refunds, load time).' })),
  cap: Type.Optional(MetricCapSchema),
  value: Type.Optional(Type.String({ description: '`sum`: the numeric `data` field added up, or fields multiplied (`price*quantity`).' })),
  distinct: Type.Optional(Type.String({ description: '`count` only: counts the distinct values of this `data` field.' })),
  where: Type.Optional(FreeObject('A condition over the event\'s `data`, with the operators of experience conditions.')),
  windowHours: Type.Optional(Type.Number({ description: 'Counts only events within this many hours after the unit\'s first exposure.' })),
  cuped: Type.Optional(Type.Boolean({ description: 'Variance reduction (CUPED) by the same metric\'s value before first exposure.' })),
  cupedDays: Type.Optional(Type.Number({ description: 'CUPED\'s look-back in days (default 14).' })),
}, { $id: 'MetricItem', description: 'A metric experiments are judged on, per unit, from its first exposure on.' });
export type MetricItem = Static<typeof MetricItemSchema>;

const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);
const Relative = Type.Union([Type.Number(), Type.Object({ same: Type.Number({ description: 'A factor of the page product\'s field.' }) })]);

export const FieldOperatorsSchema = Type.Object({
  eq: Type.Optional(Scalar),
  in: Type.Optional(Type.Array(Scalar)),
  gte: Type.Optional(Relative),
  lte: Type.Optional(Relative),
  same: Type.Optional(Type.Literal(true, { description: 'Equal to the field of the product the page is about.' })),
});
export type FieldOperators = Static<typeof FieldOperatorsSchema>;

/** A condition on one catalog field: a plain value (equal to it; for `tags`, one of them), or operators that all hold. */
export const FieldConditionSchema = Type.Union([Type.String(), Type.Number(), Type.Boolean(), FieldOperatorsSchema]);
export type FieldCondition = Static<typeof FieldConditionSchema>;

export const FeedConditionsSchema = Type.Record(Type.String(), FieldConditionSchema, { description: 'Catalog field → condition: all must hold.' });
export type FeedConditions = Static<typeof FeedConditionsSchema>;

export const FeedRuleSchema = Type.Union([
  Type.Object({ pin: Type.String(), position: Type.Number() }),
  Type.Object({ filter: FeedConditionsSchema }),
  Type.Object({ boost: FeedConditionsSchema, factor: Type.Optional(Type.Number()) }),
  Type.Object({ bury: FeedConditionsSchema, factor: Type.Optional(Type.Number()) }),
], { description: 'A merchandising rule, applied after the strategy: `{pin, position}`, `{filter}`, `{boost, factor?}` or `{bury, factor?}`.' });
export type FeedRule = Static<typeof FeedRuleSchema>;

export const FeedExclusionSchema = Type.Union([
  Type.String({ description: '`in-cart`, `purchased` (within `purchasedDays`), `viewed`, or a product id.' }),
  Type.Object({ ids: Type.Array(Type.String()) }),
]);
export type FeedExclusion = Static<typeof FeedExclusionSchema>;

export const FeedFallbackSchema = Type.Union([
  Type.Enum([...FEED_STRATEGIES, 'popular-in-category'], { description: 'A strategy, or popular in the page product\'s category.' }),
  Type.Object({ feed: Type.Integer({ description: 'Another feed\'s list, by id.' }) }),
]);
export type FeedFallback = Static<typeof FeedFallbackSchema>;

export const FeedItemSchema = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  strategy: Strategy,
  attributionHours: Type.Optional(Type.Number({ description: 'Hours after a click that a cart addition or an order of the product is credited to it (1–720; default 24).' })),
  limit: Type.Optional(Type.Integer({ description: 'The most products the feed answers (1–100).' })),
  dedupe: Type.Optional(Type.Boolean({ description: 'Leave out a product another widget of the page shows (default true; stored, the page-level part not applied yet).' })),
  rules: Type.Optional(Type.Array(FeedRuleSchema)),
  exclude: Type.Optional(Type.Array(FeedExclusionSchema, { description: 'What never appears.' })),
  purchasedDays: Type.Optional(Type.Number({ description: 'The days back `purchased` looks (default 30).' })),
  fallback: Type.Optional(Type.Array(FeedFallbackSchema, { description: 'What fills the list when the strategy has too few, in order (default `["popular"]`).' })),
}, { $id: 'FeedItem', description: 'A recommendation feed: its strategy, rules and fallbacks.' });
export type FeedItem = Static<typeof FeedItemSchema>;

/** What the API adds to an item it answers. */
const Served = {
  version: Type.Integer({ minimum: 1, description: '1 for a file item, +1 per write; the `ETag`.' }),
  source: Type.Union([Type.Literal('file'), Type.Literal('api')]),
};

export const ExperienceAnswer = Type.Intersect([ExperienceItemSchema, Type.Object({ ...Served, status: StatusSchema })]);
export type ExperienceAnswer = Static<typeof ExperienceAnswer>;
export const MetricAnswer = Type.Intersect([MetricItemSchema, Type.Object(Served)]);
export type MetricAnswer = Static<typeof MetricAnswer>;
export const FeedAnswerItem = Type.Intersect([FeedItemSchema, Type.Object(Served)]);
export type FeedAnswerItem = Static<typeof FeedAnswerItem>;

export const ActorSchema = Type.Object({
  type: Type.Union([Type.Literal('person'), Type.Literal('key')]),
  id: Type.String(),
  name: Type.String(),
  role: Type.Optional(Type.String()),
  ip: Type.Optional(Type.String()),
  userAgent: Type.Optional(Type.String()),
  via: Type.Optional(Type.Literal('service', { description: 'The service did it in the background for this person or key.' })),
}, { $id: 'Actor', description: 'Who made a change: a key or a person, with their role, and from where.' });
export type Actor = Static<typeof ActorSchema>;

export const AuditEntrySchema = Type.Object({
  at: IsoTime(),
  keyId: Type.String(),
  actor: ActorSchema,
  action: Type.Enum(['create', 'update', 'delete', 'stop', 'reweight', 'invite', 'disable'], {
    description: '`stop`: the service stopped an experiment by itself (`after.stoppedBy` says why); `reweight`: a bandit\'s weights moved; '
      + '`disable`: the service disabled a webhook endpoint failing for 24 hours (`after.disabledReason`).',
  }),
  kind: Type.Enum(['experience', 'metric', 'feed', 'erasure', 'export', 'person', 'key', 'webhook']),
  name: Type.String(),
  before: Nullable(FreeObject()),
  after: Nullable(FreeObject()),
});
export type AuditEntry = Static<typeof AuditEntrySchema>;

export const AuditAnswer = Type.Object({ entries: Type.Array(AuditEntrySchema, { description: 'Newest first.' }) });

export const AuditQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Default 100.' })),
  kind: Type.Optional(Type.String({ description: 'Only entries of this kind.' })),
  name: Type.Optional(Type.String({ description: 'Only entries of this item.' })),
  actor: Type.Optional(Type.String({ description: 'Only entries of this key id or person\'s email.' })),
  since: Type.Optional(Type.String({ description: 'ISO 8601 date or date-time.' })),
  until: Type.Optional(Type.String({ description: 'ISO 8601 date (the whole day) or date-time, inclusive.' })),
});

/** True when A and B are the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compiles only for `true`. */
type Expect<T extends true> = T;
/**
 * The shapes the browser SDK's wire/ files write by hand (it cannot import TypeBox) are these schemas' types: a schema
 * that drifts from one fails to compile here.
 */
export type WireAgrees = Expect<Same<
  [Device, PValueCorrection, Static<typeof MetricTypeSchema>, Static<typeof AutomaticStopSchema>],
  [ChooseDevice, WirePValueCorrection, WireMetricType, WireAutomaticStop]
>>;
