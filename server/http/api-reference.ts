import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Type from 'typebox';
import { apiRoute, type ApiRoute } from './api-route.js';
import type { OpenApiDocument } from './openapi-document.js';
import { REFERENCE_CSS, REFERENCE_PAGE, REFERENCE_SCRIPT } from './api-reference-page.js';

// The API's description (`GET /v1/openapi.json`) and its reference page (`/docs/api`), rendered in the browser by
// Swagger UI from the swagger-ui-dist package: served from the package's own files, so the page works offline and asks
// nothing of any other host (its Content-Security-Policy lets it reach this origin only).

export const OPENAPI_PATH = '/v1/openapi.json';
export const REFERENCE_PATH = '/docs/api';

/** The page's policy: nothing but this origin (Swagger UI sets inline styles, and draws its icons as data: images). */
const PAGE_POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; object-src 'none'; base-uri 'none'; form-action 'none'";

/** The files the page loads, by name: Swagger UI's from its package (read on first use), ours from strings. */
function assets(): Map<string, { type: string; body: () => string | Buffer }> {
  const packageDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const file = (name: string): (() => Buffer) => {
    let read: Buffer | undefined;
    return () => (read ??= readFileSync(join(packageDir, name)));
  };
  return new Map([
    ['swagger-ui.css', { type: 'text/css; charset=utf-8', body: file('swagger-ui.css') }],
    ['swagger-ui-bundle.js', { type: 'application/javascript; charset=utf-8', body: file('swagger-ui-bundle.js') }],
    ['reference.css', { type: 'text/css; charset=utf-8', body: () => REFERENCE_CSS }],
    ['reference.js', { type: 'application/javascript; charset=utf-8', body: () => REFERENCE_SCRIPT(OPENAPI_PATH) }],
  ]);
}

/**
 * `GET /v1/openapi.json` (the description of every route the app registered, built once on first read), `GET /docs/api`
 * (the reference page) and `GET /docs/api/{file}` (its scripts and styles).
 * @example routes.push(...apiReferenceRoutes(() => openApiDocument(routes, version)));
 */
export function apiReferenceRoutes(describe: () => OpenApiDocument): ApiRoute[] {
  let document: string | undefined;
  const files = assets();
  return [
    apiRoute({
      method: 'GET', path: OPENAPI_PATH, tag: 'Service', access: { kind: 'public' }, errors: [],
      summary: 'This description',
      description: 'The OpenAPI 3.1 description of every route: what this reference page is rendered from.',
      answers: { 200: { description: 'The description.', json: Type.Object({ openapi: Type.Literal('3.1.0') }, { additionalProperties: true }) } },
      handler: async (_request, reply) => {
        document ??= JSON.stringify(describe());
        return reply.type('application/json; charset=utf-8').send(document);
      },
    }),
    apiRoute({
      method: 'GET', path: REFERENCE_PATH, tag: 'Service', access: { kind: 'public' }, errors: [],
      summary: 'The API reference page',
      description: 'This description, rendered for people (Swagger UI, served from this service: no other host is asked).',
      answers: { 200: { description: 'The page.', media: { 'text/html': 'The reference page.' } } },
      handler: async (_request, reply) => reply
        .header('content-security-policy', PAGE_POLICY)
        .type('text/html; charset=utf-8')
        .send(REFERENCE_PAGE(REFERENCE_PATH)),
    }),
    apiRoute<{ Params: { file: string } }>({
      method: 'GET', path: `${REFERENCE_PATH}/:file`, tag: 'Service', access: { kind: 'public' }, errors: ['route_not_found'],
      summary: 'The reference page\'s scripts and styles',
      request: { params: { file: { description: 'One of the page\'s files.', schema: Type.Union([...files.keys()].map((name) => Type.Literal(name))) } } },
      answers: { 200: { description: 'The file.', media: { 'application/javascript': 'A script.', 'text/css': 'A style sheet.' } } },
      handler: async (request, reply) => {
        const asset = files.get(request.params.file);
        if (asset === undefined) {
          return reply.callNotFound();
        }
        return reply.header('cache-control', 'public, max-age=300').type(asset.type).send(asset.body());
      },
    }),
  ];
}
