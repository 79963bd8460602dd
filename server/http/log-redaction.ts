import type { FastifyRequest, FastifyServerOptions } from 'fastify';

// Secrets never reach the logs: server keys travel in the query string (`?apiKey=`, and a browser's writeKey as
// `?writeKey=`, public but a key all the same), which Fastify's request log line
// prints as part of the URL. Headers (Basic and Bearer credentials) are not in the request line; should a log call
// pass a request's headers, pino's `redact` censors their Authorization and Cookie.

// `?name=value` or `&name=value`; the name is compared decoded, as the query parser reads it (`%61piKey` is apiKey).
// A name stops at a `?` too: otherwise every `?` of a URL made of them starts a scan to its end (quadratic in a
// 16 KiB request line). A literal `?` in a name is then read as a new name: more is redacted, never less.
const PARAM = /([?&])([^=&#?]*)=([^&#]*)/g;

// `code`: the authorization code a single sign-on provider sends back to /admin/oidc/callback.
const REDACTED_PARAMS = new Set(['apikey', 'writekey', 'code']);

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return name.toLowerCase();
  }
}

/**
 * `url` with every `apiKey` and `writeKey` query value replaced, however its name is written or percent-encoded.
 * @example redactUrl('/v1/acme/projects/shop/choose-api?apiKey=srv1.s3cret&x=1') // → '…?apiKey=[redacted]&x=1'
 */
export function redactUrl(url: string): string {
  return url.replace(PARAM, (param, separator: string, name: string) =>
    (REDACTED_PARAMS.has(decodedName(name)) ? `${separator}${name}=[redacted]` : param));
}

/** Where a log object may carry credentials: keys, and the console's session cookie. */
const REDACTED_PATHS = [
  'req.headers.authorization', 'headers.authorization', 'request.headers.authorization',
  'req.headers.cookie', 'headers.cookie', 'request.headers.cookie', 'res.headers["set-cookie"]', 'headers["set-cookie"]',
];

/** Fastify's request log fields, with the URL redacted; anything else logged under `req` passes as it is. */
function request(req: FastifyRequest): Record<string, unknown> {
  if (typeof req !== 'object' || req === null || typeof req.url !== 'string' || typeof req.method !== 'string') {
    return req as unknown as Record<string, unknown>;
  }
  return {
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/**
 * A logger option with the redacting request serializer (a caller's own serializers win); `false` stays off.
 * @example Fastify({ logger: redactingLogger({ level: 'info' }) })
 */
export function redactingLogger(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (logger === undefined || logger === false) return false;
  const options = logger === true ? {} : logger;
  return {
    ...options,
    serializers: { req: request, ...(options.serializers ?? {}) },
    redact: options.redact ?? { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
}
