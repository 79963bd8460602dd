// Privacy requests (erasures and exports of one person), the suppression list and proof of consent.
import Type, { type Static } from 'typebox';
import { Count, FreeObject, Id, IsoTime, Nullable } from './schema-parts.js';

export const PrivacyBody = Type.Union([
  Type.Object({ profileId: Id(), sourceId: Id() }),
  Type.Object({ userId: Id() }),
  Type.Object({ email: Type.String({ maxLength: 320 }) }),
], { description: 'The person, named one way.' });

export const PrivacyRequestSchema = Type.Object({
  id: Type.String(),
  kind: Type.Union([Type.Literal('erasure'), Type.Literal('export')]),
  status: Type.Union([Type.Literal('received'), Type.Literal('running'), Type.Literal('done')]),
  subject: Type.Object({
    kind: Type.Union([Type.Literal('profileId'), Type.Literal('userId'), Type.Literal('email')]),
    value: Type.Optional(Type.String()),
    sourceId: Type.Optional(Type.String()),
  }, { description: 'Who; the value is cleared once an erasure is done.' }),
  step: Type.String(),
  counts: Type.Record(Type.String(), Type.Integer(), { description: 'Rows removed (erasure) or collected (export), by kind.' }),
  keyId: Type.String(),
  createdAt: IsoTime(),
  finishedAt: Nullable(IsoTime()),
}, { $id: 'PrivacyRequest' });

export const ErasureList = Type.Object({ erasures: Type.Array(PrivacyRequestSchema) });
export const ExportList = Type.Object({ exports: Type.Array(PrivacyRequestSchema) });

export const ExportAnswer = Type.Intersect([PrivacyRequestSchema, Type.Record(Type.String(), Type.Unknown())], {
  description: 'A done export adds the person\'s rows by kind (`events`, `consents`…).',
});

const SuppressionSchema = Type.Object({
  kind: Type.Union([Type.Literal('profile'), Type.Literal('user'), Type.Literal('email')]),
  value: Type.String(),
  requestId: Type.String(),
  createdAt: IsoTime(),
}, { description: 'An erased id, refused from then on.' });

export const SuppressionsAnswer = Type.Object({ suppressions: Type.Array(SuppressionSchema) });

/** An erasure or export as the service answers it (after an erasure is done, only the kind of id it named). */
export type PrivacyRequest = Static<typeof PrivacyRequestSchema>;
/** An erased id, refused from then on. */
export type Suppression = Static<typeof SuppressionSchema>;

export const ConsentsQuery = Type.Object({
  from: Type.Optional(Type.String({ description: 'ISO 8601 or epoch ms (default: the beginning).' })),
  to: Type.Optional(Type.String({ description: 'ISO 8601 or epoch ms, exclusive.' })),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});

export const ConsentsAnswer = Type.Object({
  consents: Type.Array(Type.Intersect([FreeObject(), Type.Object({ id: Count(), ts: IsoTime(), validUntil: IsoTime(), receivedAt: IsoTime() })]), {
    description: 'Oldest first.',
  }),
});

export const ListQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Default 100.' })) });
