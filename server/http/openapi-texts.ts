// The prose of the API's description: how keys are sent, what path parameters mean, the groups of routes. The routes'
// own texts are beside them (each domain's routes); the generator is openapi-document.ts.

export const API_DESCRIPTION = [
  'The svc service: event ingestion, consent, the Choose API, recommendations, experiment results and planning, the',
  'management API (experiences, metrics, feeds), team access and privacy requests. Every body is JSON unless said.',
  '',
  '**Keys.** A project has public *writeKeys* (browsers: HTTP Basic `<username>:<password>` of the key',
  '`<username>.<password>`, split at its first dot, or `?writeKey=`) and secret *apiKeys* (servers: `?apiKey=` or',
  '`Authorization: Bearer`). An organization has *admin keys* (`?apiKey=` or Bearer) with a role (`viewer` reads,',
  '`editor` also changes items, `admin` also manages people, keys and privacy requests); people signed in to the console',
  'carry a session cookie instead, and send its `X-CSRF-Token` (from `GET /v1/{org}/me`) with every POST, PUT, PATCH and',
  'DELETE. A route lists the schemes that open it; a role named in a requirement is the least role it needs.',
  'OpenFeature\'s routes (`/ofrep/`) find the project by the key: a writeKey or an apiKey sent any of those ways or as',
  '`X-API-Key`, its kind the key\'s own.',
  '',
  '**Errors.** Every failure answers `{"error": {"code", "message"}}`; a code always has the same status, and each',
  'route lists the codes it can answer under their status. `route_not_found` (404) answers any method and path no route',
  'has. Connection-level refusals (`request_timeout`, `headers_too_large`) close the connection after the answer.',
  'OpenFeature\'s evaluations answer the failures the protocol names in its shape, `{key, errorCode, errorDetails}`.',
  '',
  '**CORS.** Under `/v1/`, a project\'s `allowedOrigins` (any origin by default) are reflected; preflights (`OPTIONS`)',
  'are answered 204 for every path there, before authentication. Under `/ofrep/` every origin is answered (a preflight',
  'carries no key, so no project), and a writeKey sent from an origin its project does not allow is refused 403.',
].join('\n');

/** What each path parameter names, unless a route says otherwise. */
export const PATH_PARAMETERS: Readonly<Record<string, string>> = {
  org: 'The organization, as named in the service\'s configuration.',
  project: 'The project of the organization.',
  sourceId: 'One of the project\'s `sources`: where the events come from (a site, an app).',
  name: 'The item\'s name.',
};

const SESSION = 'The console\'s session cookie (`svc_session`, `__Host-svc_session` over https), set by `POST /v1/{org}/session`. '
  + 'POST, PUT, PATCH and DELETE need the session\'s `X-CSRF-Token` header and a same-origin `Origin`.';

export const SECURITY_SCHEMES = {
  writeKeyBasic: { type: 'http', scheme: 'basic', description: 'A writeKey `<username>.<password>` as Basic `<username>:<password>` (split at the first dot). Public: every page carries it.' },
  writeKeyQuery: { type: 'apiKey', in: 'query', name: 'writeKey', description: 'A writeKey as `?writeKey=<username>.<password>`: a CORS simple request, no preflight.' },
  apiKeyQuery: { type: 'apiKey', in: 'query', name: 'apiKey', description: 'A project\'s secret apiKey `<id>.<secret>`, for servers.' },
  apiKeyBearer: { type: 'http', scheme: 'bearer', description: 'A project\'s secret apiKey `<id>.<secret>` as `Authorization: Bearer`.' },
  projectKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A project\'s writeKey or apiKey `<id>.<secret>` as `X-API-Key` (OpenFeature\'s OFREP providers send it so), on routes whose project is the key\'s; there Basic and Bearer take either kind too.' },
  adminKeyQuery: { type: 'apiKey', in: 'query', name: 'apiKey', description: 'An admin key of the organization (`adminKeys` in the configuration, or made with `POST /v1/{org}/keys`), with its role.' },
  adminKeyBearer: { type: 'http', scheme: 'bearer', description: 'An admin key of the organization as `Authorization: Bearer`, with its role.' },
  consoleSession: { type: 'apiKey', in: 'cookie', name: 'svc_session', description: SESSION },
} as const;

/** The groups of routes, in the reference's order. */
export const TAGS: readonly { name: string; description: string }[] = [
  { name: 'Ingestion', description: 'Events and consent records sent by the browser SDK.' },
  { name: 'Choose', description: 'Which variation or content a visitor gets.' },
  { name: 'Recommendations', description: 'Product feeds, their reports and previews, and the catalog.' },
  { name: 'OpenFeature', description: 'OpenFeature\'s Remote Evaluation Protocol (OFREP): a flag is an experience, evaluated by the Choose API.' },
  { name: 'Results', description: 'An experiment\'s statistics and the plan of one.' },
  { name: 'Management', description: 'Experiences, metrics and feeds written through the API, and the project\'s audit log.' },
  { name: 'Team access', description: 'An organization\'s people and admin keys, and its audit log.' },
  { name: 'Sessions', description: 'Signing in to the console and out of it, invitations, single sign-on.' },
  { name: 'Privacy', description: 'Erasures, exports, the suppression list and proof of consent.' },
  { name: 'Webhooks', description: 'A project\'s webhook endpoints, their delivery logs, test events and resends.' },
  { name: 'Service', description: 'Health, metrics and this description.' },
];
