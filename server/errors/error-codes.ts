// Every error code the service answers with, in one place, so that clients can rely on them: a code maps to exactly one
// status, codes are never reused, and docs/errors.md must list each of them (test/server/errors/error-codes.test.ts checks).

export interface ErrorCodeInfo {
  status: number;
  description: string;
}

export const ERROR_CODES = {
  bad_request: { status: 400, description: 'The request is malformed in a way no more specific code covers (also: HTTP that does not parse, a path that is not valid percent-encoding).' },
  invalid_json: { status: 400, description: 'The body is not valid JSON (for application/json or text/plain bodies).' },
  invalid_batch: { status: 400, description: 'The track body is not `{batch:[event…]}` or the batch is empty or too long.' },
  invalid_event: { status: 400, description: 'An event of the batch breaks the event shape; the message names the index and field. The whole batch is refused.' },
  invalid_consent: { status: 400, description: 'The consent record breaks its shape; the message names the field.' },
  invalid_request: { status: 400, description: 'A request body (Choose API, feed) or query (results, feed report, plan) breaks its shape; the message names the field.' },
  invalid_catalog: { status: 400, description: 'The catalog body is neither a JSON array nor an NDJSON stream of products, is empty, or holds more than 100,000 products.' },
  invalid_product: { status: 400, description: 'A catalog product breaks its shape; the message names its index and field (`products[17].price: must be a number`). Nothing of the upload is stored.' },
  invalid_config: { status: 400, description: 'A management write breaks the configuration\'s rules (the same as the file\'s); the message names the field (`experience.variations: weights must sum to 100`). Nothing is stored.' },
  invalid_webhook: { status: 400, description: 'A webhook endpoint breaks its shape (`url`, `events`, `format`, `enabled`, `description`), or its URL is not allowed: not https, or its host resolves to a private, loopback, link-local or otherwise reserved address; the message names the field. Nothing is stored.' },
  invalid_invitation: { status: 400, description: 'The invitation link\'s token is unknown, used, replaced by a newer invitation, or expired; an admin can make a new one.' },
  unknown_user: { status: 400, description: 'Choose API form B names a `userId` that no identify event has linked to a profile.' },
  names_or_groups_required: { status: 400, description: 'A Choose request has neither `names` nor `groups`.' },
  session_id_required: { status: 400, description: 'A requested experience is sticky by session (`stickiness: "session"`) and the Choose request has no `sessionId`.' },
  missing_credentials: { status: 401, description: 'No key was sent: browser endpoints need HTTP Basic with a writeKey, server callers `?apiKey=`.' },
  invalid_credentials: { status: 401, description: 'The key is malformed, unknown, or of a kind this endpoint does not accept.' },
  session_expired: { status: 401, description: 'The console\'s session cookie is unknown or over (idle or absolute timeout, signed out), or its person was removed or its key revoked; the cookie is cleared. Sign in again.' },
  admin_key_required: { status: 403, description: 'A management endpoint was called with a valid key that is not an admin key of the organization (an apiKey or writeKey, however sent).' },
  role_forbidden: { status: 403, description: 'The admin key (or person) is valid for this project but its role is below the route\'s: reads need `viewer`, experience, metric and feed writes `editor`, people, keys, privacy requests and webhooks `admin`.' },
  csrf_failed: { status: 403, description: 'A POST, PUT or DELETE sent with the console\'s session cookie lacks the session\'s `X-CSRF-Token` (from `GET /v1/{org}/me`), or comes from another origin.' },
  wrong_password: { status: 403, description: 'Changing a password: the current password sent is wrong.' },
  key_not_for_project: { status: 403, description: 'The key is valid but belongs to another project.' },
  identification_not_allowed: { status: 403, description: 'A writeKey (browser) caller sent Choose identification form B (`userId`); that form is for apiKey (server-side) callers.' },
  source_not_allowed: { status: 403, description: 'The source id is not listed in the project\'s `sources`.' },
  origin_not_allowed: { status: 403, description: 'The request\'s `Origin` is not in the project\'s `allowedOrigins`.' },
  project_not_found: { status: 404, description: 'The organization or project in the path does not exist (only told to callers holding a valid key).' },
  experience_not_found: { status: 404, description: 'The experience in the path does not exist in the project (or was deleted); for results and plans, also one that is not an experiment (it has no variations).' },
  feed_not_found: { status: 404, description: 'The feed id in the path does not exist in the project (or was deleted).' },
  metric_not_found: { status: 404, description: 'The metric in the path does not exist in the project (or was deleted).' },
  privacy_request_not_found: { status: 404, description: 'The erasure or export id in the path does not exist in the project (or an export\'s data was cleared by a later erasure of the same person).' },
  webhook_not_found: { status: 404, description: 'The webhook endpoint (or its delivery) in the path does not exist in the project (or was deleted).' },
  key_not_found: { status: 404, description: 'The key id in the path is not a key of the organization created through the keys API (or it was revoked).' },
  person_not_found: { status: 404, description: 'The email in the path is not a person of the organization.' },
  organization_not_found: { status: 404, description: 'The organization in the path is not in the service\'s configuration (the sign-in page\'s question, asked without a key).' },
  sso_not_configured: { status: 404, description: 'Single sign-on was asked for an organization without `oidc` settings.' },
  route_not_found: { status: 404, description: 'No route matches the method and path.' },
  item_in_use: { status: 409, description: 'A feed cannot be deleted while an experience uses it, nor a metric while a ratio metric divides it; change or delete the user first.' },
  metric_name_taken: { status: 409, description: 'A new metric\'s name differs from an existing metric\'s only in case (`Purchase` beside `purchase`); the message names the existing one.' },
  request_timeout: { status: 408, description: 'The request\'s headers (15 s) or the whole request (120 s) did not arrive within the deadline; the connection is closed.' },
  version_conflict: { status: 412, description: 'The `If-Match` version is not the item\'s current version: someone changed it since you read it. Read it again and retry.' },
  payload_too_large: { status: 413, description: 'The body is over 1 MiB (64 MiB for the catalog). The rest of the body is read and discarded before the answer\'s connection is reused, so a client still sending sees the answer, not a reset.' },
  path_too_long: { status: 414, description: 'A segment of the path is over 100 characters: no organization, project, source or feed has such a name.' },
  headers_too_large: { status: 431, description: 'The request line and headers are over 16 KiB; the connection is closed.' },
  // 400, not 415: the API answers bad input with 400, and a content type we do not read is bad input.
  unsupported_media_type: { status: 400, description: 'The body\'s content type is neither application/json nor text/plain (nor NDJSON for the catalog).' },
  rate_limited: { status: 429, description: 'Too many requests for this key (and client IP); retry after the `Retry-After` seconds.' },
  internal_error: { status: 500, description: 'An unexpected failure; details are in the service log, never in the answer.' },
  storage_unavailable: { status: 503, description: 'The database does not answer, refuses the connection, is locked or full (any endpoint; Retry-After: 5), or the Choose API could not store an assignment. Retry: nothing of the request was stored.' },
  overloaded: { status: 503, description: 'More events are waiting on this node than it takes on (to be stored, or stored but not yet counted by the recommendation models); nothing of the batch was stored. Retry after the `Retry-After` seconds (the SDK does).' },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;
