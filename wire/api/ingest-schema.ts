// What the browser SDK sends: a batch of events (track) and a consent record, and what each answers.
import Type from 'typebox';
import { Count, FreeObject, Id, IsoTime } from './schema-parts.js';

export const EventSchema = Type.Object({
  eventId: Id('UUID v4 from `crypto.randomUUID`; the service deduplicates by it, per project.'),
  type: Type.Union(['identify', 'alias', 'group', 'track', 'record', 'product', 'page', 'session', 'consent', 'logout'].map((t) => Type.Literal(t))),
  name: Type.String({ description: 'The event title: `Identify`, `Added to cart`, a `track` title…' }),
  profileId: Id(),
  sessionId: Id(),
  pageId: Id(),
  timestamp: IsoTime('The client clock when it happened.'),
  userId: Type.Optional(Id('An identify links it to the profile.')),
  anotherUserId: Type.Optional(Id('An alias links it to the same person.')),
  accountId: Type.Optional(Id('A group links the profile to it.')),
  userAttributes: Type.Optional(FreeObject()),
  accountAttributes: Type.Optional(FreeObject()),
  data: Type.Optional(FreeObject('Product events: `{productId, quantity}` (and `orderId`, `price`, `currency`); an `Experiment Viewed` track: `{experience, variation}`.')),
}, { $id: 'Event', description: 'One tracked event.' });

export const TrackBody = Type.Object({
  batch: Type.Array(EventSchema, { minItems: 1, maxItems: 500 }),
  sentAt: Type.Optional(IsoTime('The sender\'s clock when it sent the batch: event times are corrected for its skew.')),
});

export const TrackAnswer = Type.Object({
  accepted: Count('Events stored now or before (an erased person\'s are counted and stored nowhere).'),
  duplicates: Count('Events whose eventId was already stored.'),
});

export const ConsentRecordSchema = Type.Object({
  eventId: Type.Optional(Id('A record resent with the same eventId is stored once.')),
  profileId: Id(),
  sourceId: Type.Optional(Id()),
  timestamp: Type.Optional(Type.Union([IsoTime(), Type.Integer({ description: 'epoch milliseconds' })], { description: 'When the visitor decided.' })),
  action: Type.Union([Type.Literal('accept'), Type.Literal('reject')]),
  validUntil: Type.Integer({ description: 'Epoch milliseconds after which the record no longer counts.' }),
  category: Type.Optional(Type.String({ description: 'Absent: every category.' })),
  categories: Type.Optional(Type.Record(Type.String(), Type.Boolean(), { description: 'A banner\'s decision: every category at once.' })),
  email: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  source: Type.Optional(Type.String({ description: '`banner`, `api`, `gpc`, `tcf`…: how the visitor decided.' })),
  version: Type.Optional(Type.String({ description: 'The version of what the visitor was shown.' })),
  page: Type.Optional(Type.String({ description: 'Origin and path.' })),
}, { $id: 'ConsentRecord' });
