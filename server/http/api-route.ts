import type {
  FastifyContentTypeParser, FastifyReply, FastifyRequest, onRequestHookHandler, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault,
  RouteGenericInterface, RouteHandlerMethod,
} from 'fastify';
import type { TSchema } from 'typebox';
import type { Role } from '../config/config-store.js';
import type { ErrorCode } from '../errors/error-codes.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The keys a project's route takes; `adminKey` stands for the organization's admin keys and the console's session. */
export type ProjectKeyKind = 'writeKey' | 'apiKey' | 'adminKey';

/**
 * Who may call a route. `project` routes are checked by their onRequest hook before the body is read (projectEndpoint:
 * the rate limit, the key, the project, the origin); `keyProject` routes likewise, but their project is the key's, not
 * the path's (keyEndpoint: OpenFeature's routes, which live outside `/v1/{org}/projects/{project}`); `organization`
 * routes by their handler (orgCaller), which keeps the order of checks they always had; `public` routes by nobody.
 */
export type Access =
  | { kind: 'public' }
  | { kind: 'project'; keys: readonly ProjectKeyKind[]; role?: Role }
  | { kind: 'keyProject'; keys: readonly ('writeKey' | 'apiKey')[] }
  | { kind: 'organization'; role?: Role; sessionOnly?: true };

/** One answer of a route for one status: its JSON body's schema, or other media types, and headers it sets. */
export interface RouteAnswer {
  description: string;
  /** The JSON body (`application/json`); absent with no `media`: no body. */
  json?: TSchema;
  /** Other bodies by media type (`text/csv`, `text/html`…), each with what it holds. */
  media?: Readonly<Record<string, string>>;
  /** Response headers the route sets, by name, with what they carry. */
  headers?: Readonly<Record<string, string>>;
}

/**
 * Failures a route answers in a shape of its own (a protocol's, such as OpenFeature's `{key, errorCode, errorDetails}`)
 * instead of the service's `{error:{code, message}}`.
 */
export interface OwnErrors {
  /** The route's error handler: answers the failures it knows in its shape, and rethrows the rest to the service's. */
  handler: (error: Error, request: FastifyRequest, reply: FastifyReply) => FastifyReply;
  /** Its answers by status; the description gives either body for a status the service's codes answer too. */
  answers: Readonly<Partial<Record<400 | 404, RouteAnswer>>>;
  /** The service's codes it answers in its own shape instead (e.g. `invalid_json`): this route never sends them. */
  replaces?: readonly ErrorCode[];
}

/** What a route reads besides its path: the query, headers, and the body by media type. */
export interface RouteRequest {
  /** The query parameters, as one object schema (each property a parameter). */
  query?: TSchema;
  /** Request headers the route reads, by name, with what they mean. */
  headers?: Readonly<Record<string, string>>;
  /** The JSON body's schema. */
  json?: TSchema;
  /** Other bodies by media type. */
  media?: Readonly<Record<string, TSchema>>;
  /** Whether a body may be left out (default: a route with a body schema needs one). */
  bodyOptional?: true;
  /** Path parameters whose meaning is this route's own (e.g. `id`: a feed's, a key's), by name. */
  params?: Readonly<Record<string, { description: string; schema?: TSchema }>>;
}

/**
 * A route of the HTTP API: where it is, who may call it, what it reads and answers, and its handler. Every domain
 * exports its routes in this one shape; the entry registers them one way (registerApiRoutes) and the OpenAPI
 * description is generated from the same objects (openapi-document.ts), so the two cannot disagree.
 * The schemas describe the contract only: requests are validated by the domains' own code (their error messages are
 * part of the contract) and answers are sent as the handler builds them.
 */
export interface ApiRoute<G extends RouteGenericInterface = RouteGenericInterface> {
  method: HttpMethod;
  /** Fastify's syntax: `/v1/:org/projects/:project/…`. */
  path: string;
  /** The description's group (`Choose`, `Management`…). */
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  request?: RouteRequest;
  /** Success answers (and redirects) by status. */
  answers: Readonly<Partial<Record<200 | 201 | 202 | 204 | 302 | 304 | 503, RouteAnswer>>>;
  /** The error codes of this route's own checks; those of its access, body and path are added (route-errors.ts). */
  errors: readonly ErrorCode[];
  /** Failures answered in the route's own shape (OwnErrors). */
  ownErrors?: OwnErrors;
  handler: RouteHandlerMethod<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, G>;
  /** Its own body limit (bytes), over the service's 1 MiB. */
  bodyLimit?: number;
  /** More onRequest hooks, after the access check. */
  onRequest?: readonly onRequestHookHandler[];
  /** Body parsers of its own (the route is then registered in a scope of its own, so they apply to it alone). */
  parsers?: Readonly<Record<string, FastifyContentTypeParser>>;
  /** Left out of the project rate limit's accounting and of the plugin's (health checks, metrics scrapes). */
  unlimited?: true;
}

/**
 * A route with its handler's request typed by `G` (params, query, body), as one element of a list of routes.
 * @example export const healthRoute = (deps: HealthDeps) => apiRoute<{ Params: { org: string } }>({ method: 'GET', … });
 */
export function apiRoute<G extends RouteGenericInterface>(route: ApiRoute<G>): ApiRoute {
  return route as unknown as ApiRoute;
}
