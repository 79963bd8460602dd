import { ERROR_CODES, type ErrorCode } from '../errors/error-codes.js';
import type { Access, ApiRoute, RouteAnswer } from './api-route.js';
import { API_DESCRIPTION, PATH_PARAMETERS, SECURITY_SCHEMES, TAGS } from './openapi-texts.js';
import { routeErrors } from './route-errors.js';

type Json = Record<string, unknown>;

/** An OpenAPI 3.1 document (the parts this generator writes). */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; securitySchemes: Json };
}

/** `/v1/:org/projects/:project` → `/v1/{org}/projects/{project}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z]+)/g, '{$1}');

/**
 * The schema as JSON, with every sub-schema that carries a `$id` moved to `components.schemas` under that name and
 * referred to (`$ref`), so a shape used by many routes (an experience, the error) is written once in the document.
 * A tuple is written as JSON Schema 2020-12 says (OpenAPI 3.1's dialect): `prefixItems`, where TypeBox writes the
 * older `items: [...]` with `additionalItems`.
 */
function hoisted(schema: unknown, components: Record<string, Json>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => hoisted(s, components));
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) if (key !== '$id') out[key] = hoisted(value, components);
  if (Array.isArray(out.items)) {
    out.prefixItems = out.items;
    out.items = out.additionalItems ?? true;
    delete out.additionalItems;
  }
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id !== 'string') return out;
  components[id] ??= out;
  return { $ref: `#/components/schemas/${id}` };
}

/** Which security schemes open a route (any one of them), with the least role as the requirement's roles. */
function security(access: Access): Json[] {
  if (access.kind === 'public') return [];
  if (access.kind === 'keyProject') {
    // Any of the project's keys, however sent: the key says its kind (keyEndpoint).
    const ways = access.keys.flatMap((key): Json[] => (key === 'writeKey' ? [{ writeKeyBasic: [] }, { writeKeyQuery: [] }] : [{ apiKeyBearer: [] }, { apiKeyQuery: [] }]));
    return [{ projectKeyHeader: [] }, ...ways];
  }
  const roles = access.role !== undefined ? [access.role] : [];
  if (access.kind === 'organization') {
    return access.sessionOnly ? [{ consoleSession: [] }] : [{ adminKeyBearer: roles }, { adminKeyQuery: roles }, { consoleSession: roles }];
  }
  return access.keys.flatMap((key): Json[] => {
    if (key === 'writeKey') return [{ writeKeyBasic: [] }, { writeKeyQuery: [] }];
    if (key === 'apiKey') return [{ apiKeyQuery: [] }, { apiKeyBearer: [] }];
    return [{ adminKeyBearer: roles }, { adminKeyQuery: roles }, { consoleSession: roles }];
  });
}

/** The error answer's schema with `code` narrowed to the codes a route answers with one status. */
function errorSchema(codes: readonly ErrorCode[]): Json {
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string', enum: codes }, message: { type: 'string', description: 'A sentence for a person; never a stack trace.' } },
      },
    },
  };
}

const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'string' } } };

/** The list of `codes`, each with what it means. */
const codeList = (codes: readonly ErrorCode[]): string => codes.map((code) => `- \`${code}\`: ${ERROR_CODES[code].description}`).join('\n');

/**
 * The route's error answers, by status: each lists its codes and what they mean; a status the route also answers in
 * its own shape (OwnErrors) gives either body.
 */
function errorAnswers(route: ApiRoute, components: Record<string, Json>): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of routeErrors(route)) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const own: Readonly<Partial<Record<number, RouteAnswer>>> = route.ownErrors?.answers ?? {};
  const statuses = new Set([...byStatus.keys(), ...Object.keys(own).map(Number)]);
  const out: Record<string, Json> = {};
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const codes = byStatus.get(status) ?? [];
    const mine = own[status];
    const headers = status === 429 || status === 503 ? { headers: RETRY_AFTER } : {};
    if (mine === undefined) {
      out[String(status)] = { description: codeList(codes), ...headers, content: { 'application/json': { schema: errorSchema(codes) } } };
    } else if (codes.length === 0 || mine.json === undefined) {
      out[String(status)] = answer(mine, components);
    } else {
      out[String(status)] = {
        description: `${mine.description}\n\nOr, in the service's error shape:\n${codeList(codes)}`,
        ...headers,
        content: { 'application/json': { schema: { anyOf: [hoisted(mine.json, components), errorSchema(codes)] } } },
      };
    }
  }
  return out;
}

function answer(value: RouteAnswer, components: Record<string, Json>): Json {
  const content: Json = {};
  if (value.json) content['application/json'] = { schema: hoisted(value.json, components) };
  for (const [type, description] of Object.entries(value.media ?? {})) content[type] = { schema: { type: 'string', description } };
  const headers = Object.entries(value.headers ?? {}).map(([name, description]) => [name, { description, schema: { type: 'string' } }]);
  return {
    description: value.description,
    ...(headers.length > 0 ? { headers: Object.fromEntries(headers) } : {}),
    ...(Object.keys(content).length > 0 ? { content } : {}),
  };
}

/** The route's parameters: its path's (PATH_PARAMETERS, or its own meaning of one), its query's, its headers'. */
function parameters(route: ApiRoute, components: Record<string, Json>): Json[] {
  const path = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!).map((name) => {
    const own = route.request?.params?.[name];
    const known = PATH_PARAMETERS[name];
    if (!own && !known) throw new Error(`${route.method} ${route.path}: the path parameter ${name} is not described`);
    const schema = own?.schema ?? { type: 'string', minLength: 1, maxLength: 100 };
    return { name, in: 'path', required: true, description: own?.description ?? known, schema: hoisted(schema, components) };
  });
  const query = route.request?.query as { properties?: Record<string, Json>; required?: string[] } | undefined;
  const queries = Object.entries(query?.properties ?? {}).map(([name, schema]) => {
    const { description, ...rest } = hoisted(schema, components) as Json;
    return { name, in: 'query', required: query?.required?.includes(name) ?? false, ...(description ? { description } : {}), schema: rest };
  });
  const headers = Object.entries(route.request?.headers ?? {}).map(([name, description]) => ({ name, in: 'header', description, schema: { type: 'string' } }));
  return [...path, ...queries, ...headers];
}

/** `post /v1/{org}/projects/{project}/optimization/choose-api` → `postProjectOptimizationChooseApi`, unique per route. */
function operationId(route: ApiRoute): string {
  const words = route.path.split(/[/-]/).filter((w) => w !== '' && w !== 'v1' && !w.startsWith(':')).map((w) => (w === 'projects' ? 'project' : w));
  const params = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!).filter((p) => !['org', 'project'].includes(p));
  const camel = [...words, ...(params.length > 0 ? ['by', ...params] : [])].map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return `${route.method.toLowerCase()}${camel.replace(/[^A-Za-z0-9]/g, '')}`;
}

function operation(route: ApiRoute, components: Record<string, Json>): Json {
  const request = route.request;
  const body: Json = {};
  if (request?.json) body['application/json'] = { schema: hoisted(request.json, components) };
  for (const [type, schema] of Object.entries(request?.media ?? {})) body[type] = { schema: hoisted(schema, components) };
  const answers = Object.fromEntries(Object.entries(route.answers).map(([status, value]) => [status, answer(value, components)]));
  const params = parameters(route, components);
  return {
    operationId: operationId(route),
    tags: [route.tag],
    summary: route.summary,
    ...(route.description !== undefined ? { description: route.description } : {}),
    security: security(route.access),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(Object.keys(body).length > 0 ? { requestBody: { required: request?.bodyOptional !== true, content: body } } : {}),
    responses: { ...errorAnswers(route, components), ...answers },
  };
}

/**
 * The OpenAPI 3.1 description of `routes`: paths, parameters, bodies, answers with their schemas, each route's error
 * answers (every code it can answer, by status) and who may call it (security schemes, with the least role).
 * @throws Error for a route whose path parameter nothing describes, or two routes of one method and path.
 */
export function openApiDocument(routes: readonly ApiRoute[], version: string): OpenApiDocument {
  const components: Record<string, Json> = {};
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const path = (paths[openApiPath(route.path)] ??= {});
    const method = route.method.toLowerCase();
    if (path[method]) throw new Error(`${route.method} ${route.path} is described twice`);
    path[method] = operation(route, components);
  }
  const used = new Set(routes.map((r) => r.tag));
  return {
    openapi: '3.1.0',
    info: { title: 'svc', version, description: API_DESCRIPTION },
    tags: TAGS.filter((t) => used.has(t.name)),
    paths,
    components: { schemas: components, securitySchemes: SECURITY_SCHEMES },
  };
}
