// What the browser SDK sends: a batch of events (track) and a consent record, and what each answers.
import Type from 'typebox';
import { Count, FreeObject, Id, IsoTime, Omittable } from './schema-parts.js';

export const EventSchema = Type.Object({
  eventId: Id('UUID v4 from `crypto.randomUUID`; the service deduplicates by it, per project.'),
  type: Type.Union(['identify', 'alias', 'group', 'track', 'record', 'product', 'page', 'session', 'consent', 'logout'].map((t) => Type.Literal(t))),
  name: Type.String({ description: 'The event title: `Identify`, `Added to cart`, a `track` title…' }),
  profileId: Id(),
  sessionId: Id(),
  pageId: Id(),
  timestamp: IsoTime('The client clock when it happened.'),
  userId: Omittable(Id('An identify links it to the profile.')),
  anotherUserId: Omittable(Id('An alias links it to the same person.')),
  accountId: Omittable(Id('A group links the profile to it.')),
  userAttributes: Omittable(FreeObject()),
  accountAttributes: Omittable(FreeObject()),
  data: Omittable(FreeObject('Product events: `{productId, quantity}` (and `orderId`, `price`, `currency`); an `Experiment Viewed` track: `{experience, variation}`.')),
}, { $id: 'Event', description: 'One tracked event.' });

export const TrackBody = Type.Object({
  batch: Type.Array(EventSchema, { minItems: 1, maxItems: 500 }),
  sentAt: Omittable(IsoTime('The sender\'s clock when it sent the batch: event times are corrected for its skew.')),
});

export const TrackAnswer = Type.Object({
  accepted: Count('Events stored now or before (an erased person\'s are counted and stored nowhere).'),
  duplicates: Count('Events whose eventId was already stored.'),
});

export const ConsentRecordSchema = Type.Object({
  eventId: Omittable(Id('A record resent with the same eventId is stored once.')),
  profileId: Id(),
  sourceId: Omittable(Id()),
  timestamp: Omittable(Type.Union([IsoTime(), Type.Integer({ description: 'epoch milliseconds' })], { description: 'When the visitor decided.' })),
  action: Type.Union([Type.Literal('accept'), Type.Literal('reject')]),
  validUntil: Type.Integer({ description: 'Epoch milliseconds after which the record no longer counts.' }),
  category: Omittable(Type.String({ description: 'Absent: every category.' })),
  categories: Omittable(Type.Record(Type.String(), Type.Boolean(), { description: 'A banner\'s decision: every category at once.' })),
  email: Omittable(Type.String()),
  message: Omittable(Type.String()),
  source: Omittable(Type.String({ description: '`banner`, `api`, `gpc`, `tcf`…: how the visitor decided.' })),
  version: Omittable(Type.String({ description: 'The version of what the visitor was shown.' })),
  page: Omittable(Type.String({ description: 'Origin and path.' })),
}, { $id: 'ConsentRecord' });
