// Every JSON answer a test receives, checked against the API's description (GET /v1/openapi.json): the route's answer
// schema for its status. And every JSON body the service accepts (a 2xx), checked against the route's request schema:
// the hand-written validators, which say exactly which field is wrong, never let through what the description says is
// not the route's body. A mismatch is recorded, and the test it happened in fails (useApp's afterEach).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES } from '../../../server/errors/error-codes.js';
import { OPENAPI_PATH } from '../../../server/http/api-reference.js';
import { openApiPath, type OpenApiDocument } from '../../../server/http/openapi-document.js';

type Json = Record<string, unknown>;

/**
 * Routes that answer a bad part of an accepted body in its place (200): a feed batch checks each request as the feed
 * endpoint does and answers a bad one its own error, so a batch holding one is still accepted.
 */
const CHECKED_PART_BY_PART = new Set(['POST /v1/:org/projects/:project/feeds/data']);

/** A not-found answer has no route: it is checked against the error shape with `route_not_found`. */
const NOT_FOUND = {
  type: 'object', required: ['error'], additionalProperties: false,
  properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { const: 'route_not_found' }, message: { type: 'string' } } } },
};

/** What an answer broke: the request, the status, and the schema's complaints. */
export interface AnswerViolation {
  request: string;
  status: number;
  problem: string;
}

/**
 * Adds an onSend hook to `app` (before it is ready) that checks each JSON answer against the description the app
 * serves, and collects what breaks it into `violations`. Routes the description does not have (a test's own routes)
 * are left alone: test/server/http/openapi.test.ts checks that every route of the service is described.
 */
export function checkAnswers(app: FastifyInstance, violations: AnswerViolation[]): void {
  let described: Promise<{
    answer: (method: string, url: string | undefined, status: number) => ValidateFunction | string | null;
    body: (method: string, url: string) => ValidateFunction | null;
  }> | undefined;
  const load = async () => {
    const document = (await app.inject({ method: 'GET', url: OPENAPI_PATH })).json<OpenApiDocument>();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(document as unknown as Json, 'openapi.json');
    const compiled = new Map<string, ValidateFunction | string | null>();
    const notFound = ajv.compile(NOT_FOUND);
    const compile = (schema: Json): ValidateFunction =>
      ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')) as Json);
    const bodies = new Map<string, ValidateFunction | null>();
    const body = (method: string, url: string): ValidateFunction | null => {
      const key = `${method} ${url}`;
      if (!bodies.has(key)) {
        const operation = document.paths[openApiPath(url)]?.[method.toLowerCase()] as { requestBody?: { content?: Record<string, { schema: Json }> } } | undefined;
        const schema = operation?.requestBody?.content?.['application/json']?.schema;
        bodies.set(key, schema ? compile(schema) : null);
      }
      return bodies.get(key)!;
    };
    const answer = (method: string, url: string | undefined, status: number): ValidateFunction | string | null => {
      if (url === undefined) return status === 404 ? notFound : `no route answered ${status}`;
      const key = `${method} ${url} ${status}`;
      if (!compiled.has(key)) {
        const operation = document.paths[openApiPath(url)]?.[method.toLowerCase()] as { responses: Record<string, Json> } | undefined;
        const answer = operation?.responses[String(status)] as { content?: Record<string, { schema: Json }> } | undefined;
        const schema = answer?.content?.['application/json']?.schema;
        let check: ValidateFunction | string | null = null;
        if (operation && !answer) check = `status ${status} is not described`;
        else if (operation && !schema) check = `status ${status} is described without a JSON body`;
        else if (schema) check = compile(schema);
        compiled.set(key, check);
      }
      return compiled.get(key)!;
    };
    return { answer, body };
  };
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const url = request.routeOptions.url;
    const type = String(reply.getHeader('content-type') ?? '');
    if (url === OPENAPI_PATH || !type.startsWith('application/json')) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    described ??= load();
    const where = `${request.method} ${request.url.split('?')[0]}`;
    let check: ValidateFunction | string | null;
    try {
      const contract = await described;
      check = contract.answer(request.method, url, reply.statusCode);
      const accepted = reply.statusCode >= 200 && reply.statusCode < 300 && url !== undefined;
      const json = String(request.headers['content-type'] ?? 'application/json').startsWith('application/json');
      const whole = !CHECKED_PART_BY_PART.has(`${request.method} ${url}`);
      const bodyCheck = accepted && json && whole && request.body !== undefined ? contract.body(request.method, url) : null;
      if (bodyCheck !== null && !bodyCheck(request.body)) {
        const errors = bodyCheck.errors?.map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('; ');
        violations.push({ request: where, status: reply.statusCode, problem: `the service accepted a body its description refuses: ${errors}` });
      }
    } catch (error) {
      // A schema the validator cannot compile is the description's fault: the test fails, the answer goes out as sent.
      violations.push({ request: where, status: reply.statusCode, problem: `the description cannot be checked against: ${String(error)}` });
      return payload;
    }
    if (typeof check === 'string') violations.push({ request: where, status: reply.statusCode, problem: check });
    else if (check !== null) {
      let body: unknown;
      try {
        body = JSON.parse(String(payload));
      } catch {
        violations.push({ request: where, status: reply.statusCode, problem: 'the body is not JSON' });
        return payload;
      }
      if (!check(body)) {
        const errors = check.errors?.map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('; ');
        const code = (body as { error?: { code?: string } }).error?.code;
        const known = code !== undefined && code in ERROR_CODES ? ` (error code ${code})` : '';
        violations.push({ request: where, status: reply.statusCode, problem: `${errors}${known}` });
      }
    }
    return payload;
  });
}
