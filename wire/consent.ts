// The consent endpoint's record: what the browser SDK sends and the service validates.

/**
 * One consent record as the browser SDK sends it to the consent endpoint. The endpoint also takes a record without
 * `eventId`, `sourceId` or `timestamp`, and a `timestamp` in epoch milliseconds (a server-side caller's).
 */
export interface ConsentRecord {
  /** Dedupe key: a record resent with the same eventId is stored once. */
  eventId: string;
  profileId: string;
  sourceId: string;
  /** When the visitor decided, ISO 8601 from the client clock. */
  timestamp: string;
  action: 'accept' | 'reject';
  /** Epoch milliseconds after which the record no longer counts. */
  validUntil: number;
  /** Absent means the record covers every category. */
  category?: string;
  /** A banner's decision: every category at once (the service stores a row per category). */
  categories?: Record<string, boolean>;
  email?: string;
  message?: string;
  /** How the visitor decided: `banner`, `api`, `gpc` (Global Privacy Control), `tcf` (a CMP): proof of consent. */
  source?: string;
  /** The version of what the visitor was shown (the banner's `version` attribute). */
  version?: string;
  /** The page decided on: origin and path. */
  page?: string;
}
