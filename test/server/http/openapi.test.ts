// The API's description (GET /v1/openapi.json): valid OpenAPI 3.1, and exactly the routes the server registers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validate } from '@readme/openapi-parser';
import { ERROR_CODES } from '../../../server/errors/error-codes.js';
import { openApiPath, type OpenApiDocument } from '../../../server/http/openapi-document.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { useApp } from '../helpers/use-test-app.js';

/** Registered but not the API's: the CORS preflights, answered for every path under /v1 and /ofrep before authentication. */
const NOT_API = new Set(['OPTIONS /v1/*', 'OPTIONS /ofrep/*']);

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function describedRoutes(document: OpenApiDocument): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`)).sort();
}

for (const driver of DRIVERS) {
  describe(`the API's description (${driver.name})`, () => {
    const registered: string[] = [];
    const h = useApp(driver, {
      onRoute: (route) => {
        for (const method of [route.method].flat()) registered.push(`${method} ${route.url}`);
      },
    });
    const fetchDocument = async (): Promise<OpenApiDocument> => {
      const answer = await h.app.inject({ method: 'GET', url: '/v1/openapi.json' });
      assert.equal(answer.statusCode, 200);
      assert.match(String(answer.headers['content-type']), /^application\/json/);
      return answer.json<OpenApiDocument>();
    };

    it('is served without a key, as valid OpenAPI 3.1 (a maintained parser\'s validation)', async () => {
      const document = await fetchDocument();
      assert.equal(document.openapi, '3.1.0');
      const result = await validate(structuredClone(document) as never);
      assert.deepEqual(result.valid ? [] : result.errors, []);
    });

    it('describes every route the server registers, and nothing else', async () => {
      const document = await fetchDocument();
      const gets = new Set(registered.filter((r) => r.startsWith('GET ')).map((r) => r.slice(4)));
      // Fastify adds a HEAD route beside each GET: the same answer without a body.
      const api = registered
        .filter((r) => !NOT_API.has(r) && !(r.startsWith('HEAD ') && gets.has(r.slice(5))))
        .map((r) => { const [method, url] = r.split(' '); return `${method} ${openApiPath(url!)}`; })
        .sort();
      assert.ok(api.length > 50, `routes seen: ${api.length}`);
      assert.deepEqual(describedRoutes(document), api);
    });

    it('names every error code of the service on some route, each under its status, in the {error:{code,message}} shape', async () => {
      const document = await fetchDocument();
      const named = new Set<string>();
      for (const item of Object.values(document.paths)) {
        for (const operation of Object.values(item) as { responses: Record<string, { content?: Record<string, { schema: any }> }> }[]) {
          for (const [status, answer] of Object.entries(operation.responses)) {
            // A route that also answers in a shape of its own (OpenFeature's) gives either body: `anyOf`.
            const schema = answer.content?.['application/json']?.schema;
            const codes: string[] = [schema, ...(schema?.anyOf ?? [])].flatMap((s) => s?.properties?.error?.properties?.code?.enum ?? []);
            for (const code of codes) {
              assert.equal(ERROR_CODES[code as keyof typeof ERROR_CODES].status, Number(status), `${code} under ${status}`);
              named.add(code);
            }
          }
        }
      }
      assert.deepEqual(Object.keys(ERROR_CODES).filter((code) => !named.has(code)), []);
    });

    it('says who may call each route: the public ones open, the rest by the key kinds and least role that open them', async () => {
      const document = await fetchDocument();
      const security = (method: string, path: string) => (document.paths[path]![method] as { security: Record<string, string[]>[] }).security;
      assert.deepEqual(security('get', '/healthz'), []);
      assert.deepEqual(security('post', '/v1/{org}/projects/{project}/sources/{sourceId}/track'), [{ writeKeyBasic: [] }, { writeKeyQuery: [] }]);
      assert.deepEqual(security('put', '/v1/{org}/projects/{project}/experiences/{name}'), [{ adminKeyBearer: ['editor'] }, { adminKeyQuery: ['editor'] }, { consoleSession: ['editor'] }]);
      assert.deepEqual(security('post', '/ofrep/v1/evaluate/flags'),
        [{ projectKeyHeader: [] }, { writeKeyBasic: [] }, { writeKeyQuery: [] }, { apiKeyBearer: [] }, { apiKeyQuery: [] }]);
      assert.deepEqual(Object.keys(document.components.securitySchemes).sort(),
        ['adminKeyBearer', 'adminKeyQuery', 'apiKeyBearer', 'apiKeyQuery', 'consoleSession', 'projectKeyHeader', 'writeKeyBasic', 'writeKeyQuery']);
    });
  });
}
