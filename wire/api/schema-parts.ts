// Small parts the API's schemas are built of. The schemas of wire/api/ are the HTTP API's contract: the service's
// routes describe themselves with them (server/http/api-route.ts) and the OpenAPI description is generated from them.
// They are TypeBox values (JSON Schema with TypeScript types); the browser SDK never imports this folder.
import Type, { type TSchema } from 'typebox';

/** `T` or null. */
export const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) =>
  Type.Union([schema, Type.Null()], options);

/** An optional field the service also takes as `null`, which it reads as left out (as Segment's API does). */
export const Omittable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/** An ISO 8601 date-time as the service writes it (`2026-11-24T10:00:00.000Z`). */
export const IsoTime = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });

/** A count (a whole number ≥ 0). */
export const Count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });

/** A JSON object whose fields are the caller's (content bodies, attributes). */
export const FreeObject = (description?: string) =>
  Type.Record(Type.String(), Type.Unknown(), description ? { description } : {});

/** An id or name as the service takes them: at most 256 characters (MAX_ID_LENGTH). */
export const Id = (description?: string) => Type.String({ minLength: 1, maxLength: 256, ...(description ? { description } : {}) });

/** `{ok: true}`. */
export const OkAnswer = Type.Object({ ok: Type.Literal(true) }, { $id: 'Ok' });

/** An interval `[low, high]`. */
export const Interval = Type.Tuple([Type.Number(), Type.Number()]);
