// The management API's items (an experience, a metric, a feed) as written in svc.config.json and through the API, the
// version, source and status the API adds to what it answers, and the audit log's entries.
import Type from 'typebox';
import { FreeObject, Interval, IsoTime, Nullable } from './schema-parts.js';

const Strategy = Type.Union(['popular', 'viewed-together', 'bought-together', 'recently-viewed', 'personalized'].map((s) => Type.Literal(s)));

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

export const ExperienceItemSchema = Type.Object({
  name: Type.String(),
  group: Type.Optional(Type.String()),
  devices: Type.Optional(Type.Array(Type.Union([Type.Literal('mobile'), Type.Literal('desktop')]))),
  traffic: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Percent of the eligible visitors enrolled.' })),
  stickiness: Type.Optional(Type.Union([Type.Literal('profile'), Type.Literal('session')])),
  variations: Type.Optional(Type.Array(Type.Object({ name: Type.String(), weight: Type.Number(), body: FreeObject() }), {
    description: 'An experiment\'s variations; weights sum to 100.',
  })),
  body: Type.Optional(FreeObject('Content served to everyone (an experience without variations).')),
  feed: Type.Optional(Type.Integer({ description: 'A feed-backed experience: the feed id.' })),
  limit: Type.Optional(Type.Integer()),
  condition: Type.Optional(FreeObject('Targeting: who is eligible.')),
  namespace: Type.Optional(Type.Tuple([Type.String(), Type.Number(), Type.Number()])),
  seed: Type.Optional(Type.String()),
  hashVersion: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2)])),
  status: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('running'), Type.Literal('stopped')])),
  winner: Type.Optional(Type.String({ description: 'A stopped experiment\'s variation served to everyone.' })),
  alpha: Type.Optional(Type.Number()),
  sequential: Type.Optional(Type.Boolean()),
  sequentialTuning: Type.Optional(Type.Number()),
  correction: Type.Optional(Type.Union([Type.Literal('none'), Type.Literal('holm-bonferroni'), Type.Literal('benjamini-hochberg')])),
  goals: Type.Optional(Type.Array(Type.String())),
  secondary: Type.Optional(Type.Array(Type.String())),
  guardrails: Type.Optional(Type.Array(Type.String())),
  stopOnSrm: Type.Optional(Type.Boolean()),
  stoppedBy: Type.Optional(AutomaticStopSchema),
  randomization: Type.Optional(Type.Integer({ description: 'How many times it was re-randomised (`?rerandomize=true`); the service\'s.' })),
  allocation: Type.Optional(Type.Union([Type.Literal('fixed'), Type.Literal('bandit')])),
  bandit: Type.Optional(Type.Object({
    metric: Type.Optional(Type.String()),
    explorationUnits: Type.Optional(Type.Integer()),
    explorationHours: Type.Optional(Type.Number()),
    cadenceMinutes: Type.Optional(Type.Number()),
    minShare: Type.Optional(Type.Number()),
  })),
}, { $id: 'ExperienceItem', description: 'An experience as svc.config.json holds it (an experiment when it has variations).' });

export const MetricItemSchema = Type.Object({
  name: Type.String(),
  event: Type.Optional(Type.String()),
  type: Type.Union(['binomial', 'count', 'sum', 'ratio'].map((t) => Type.Literal(t))),
  numerator: Type.Optional(Type.String()),
  denominator: Type.Optional(Type.String()),
  inverse: Type.Optional(Type.Boolean()),
  cap: Type.Optional(Type.Object({
    type: Type.Union([Type.Literal('absolute'), Type.Literal('percentile')]), value: Type.Number(), ignoreZeros: Type.Optional(Type.Boolean()),
  })),
  value: Type.Optional(Type.String()),
  distinct: Type.Optional(Type.String()),
  where: Type.Optional(FreeObject()),
  windowHours: Type.Optional(Type.Number()),
  cuped: Type.Optional(Type.Boolean()),
  cupedDays: Type.Optional(Type.Number()),
}, { $id: 'MetricItem', description: 'A metric experiments are judged on.' });

export const FeedItemSchema = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  strategy: Strategy,
  attributionHours: Type.Optional(Type.Number()),
  limit: Type.Optional(Type.Integer()),
  dedupe: Type.Optional(Type.Boolean()),
  rules: Type.Optional(Type.Array(FreeObject('`{pin, position}`, `{filter}`, `{boost, factor?}` or `{bury, factor?}`.'))),
  exclude: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Object({ ids: Type.Array(Type.String()) })]))),
  purchasedDays: Type.Optional(Type.Number()),
  fallback: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Object({ feed: Type.Integer() })]))),
}, { $id: 'FeedItem', description: 'A recommendation feed: its strategy, rules and fallbacks.' });

/** What the API adds to an item it answers. */
const Served = {
  version: Type.Integer({ minimum: 1, description: '1 for a file item, +1 per write; the `ETag`.' }),
  source: Type.Union([Type.Literal('file'), Type.Literal('api')]),
};

export const ExperienceAnswer = Type.Intersect([ExperienceItemSchema, Type.Object({
  ...Served, status: Type.Union([Type.Literal('draft'), Type.Literal('running'), Type.Literal('stopped')]),
})]);
export const MetricAnswer = Type.Intersect([MetricItemSchema, Type.Object(Served)]);
export const FeedAnswerItem = Type.Intersect([FeedItemSchema, Type.Object(Served)]);

export const ActorSchema = Type.Object({
  type: Type.Union([Type.Literal('person'), Type.Literal('key')]),
  id: Type.String(),
  name: Type.String(),
  role: Type.Optional(Type.String()),
  ip: Type.Optional(Type.String()),
  userAgent: Type.Optional(Type.String()),
  via: Type.Optional(Type.Literal('service')),
}, { $id: 'Actor', description: 'Who made a change: a key or a person, with their role, and from where.' });

export const AuditAnswer = Type.Object({
  entries: Type.Array(Type.Object({
    at: IsoTime(),
    keyId: Type.String(),
    actor: ActorSchema,
    action: Type.Union(['create', 'update', 'delete', 'stop', 'reweight', 'invite'].map((a) => Type.Literal(a))),
    kind: Type.Union(['experience', 'metric', 'feed', 'erasure', 'export', 'person', 'key'].map((k) => Type.Literal(k))),
    name: Type.String(),
    before: Nullable(FreeObject()),
    after: Nullable(FreeObject()),
  }), { description: 'Newest first.' }),
});

export const AuditQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Default 100.' })),
  kind: Type.Optional(Type.String({ description: 'Only entries of this kind.' })),
  name: Type.Optional(Type.String({ description: 'Only entries of this item.' })),
  actor: Type.Optional(Type.String({ description: 'Only entries of this key id or person\'s email.' })),
  since: Type.Optional(Type.String({ description: 'ISO 8601 date or date-time.' })),
  until: Type.Optional(Type.String({ description: 'ISO 8601 date (the whole day) or date-time, inclusive.' })),
});
