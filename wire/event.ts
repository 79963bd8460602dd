/** The longest id or name the service takes (profile, session, user, event, product, source ids, attribute keys). */
export const MAX_ID_LENGTH = 256;

/** What kind of action an event records. */
export type EventType =
  | 'identify' | 'alias' | 'group' | 'track' | 'record' | 'product' | 'page' | 'session' | 'consent' | 'logout';

export const EVENT_TYPES: readonly EventType[] = [
  'identify', 'alias', 'group', 'track', 'record', 'product', 'page', 'session', 'consent', 'logout',
];

/** Free-form key/value payloads (`data`, `userAttributes`, `accountAttributes`). */
export type Attributes = Record<string, unknown>;

/**
 * One tracked event: what `svc:event` carries and one element of the track endpoint's `batch`.
 * The SDK fills `eventId`, the three ids, `timestamp` and `type`; the rest comes from the call.
 */
export interface ServiceEvent {
  /** UUID v4 from `crypto.randomUUID`; the service deduplicates by it. */
  eventId: string;
  type: EventType;
  /** The event title: `Identify`, `Added to cart`, a `track` title… */
  name: string;
  profileId: string;
  sessionId: string;
  pageId: string;
  /** ISO 8601 from the client clock. */
  timestamp: string;
  userId?: string;
  anotherUserId?: string;
  accountId?: string;
  userAttributes?: Attributes;
  accountAttributes?: Attributes;
  data?: Attributes;
}

/**
 * The name of the event (`type: "track"`) that reports an exposure when the visitor was shown it, with
 * `data: {experience, variation, device?}`: what `<svc-experience>` sends and the service's results count (the name
 * Segment's and GrowthBook's integrations use).
 */
export const EXPOSURE_EVENT = 'Experiment Viewed';
