// registerCors answers exactly as the @fastify/cors registration it replaced (a delegator picking one of three
// option objects, which the plugin re-normalised on every request): same status, headers and body on a matrix
// of methods, paths, origins and preflight headers, including a project with an origin allow-list and a config
// reload that changes it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { ConfigStore } from '../../server/config/config-store.js';
import { originAllowed, PREFLIGHT_MAX_AGE_SECONDS, registerCors } from '../../server/http/cors.js';
import { testConfig } from './helpers/test-config.js';

/** The registration as it was before (server/http/cors.ts at c46accf). */
async function registerPluginCors(app: FastifyInstance, store: ConfigStore): Promise<void> {
  const v1: FastifyCorsOptions = {
    methods: ['POST', 'OPTIONS'], allowedHeaders: ['Authorization', 'Content-Type'], maxAge: PREFLIGHT_MAX_AGE_SECONDS, strictPreflight: false,
  };
  const allowed: FastifyCorsOptions = { ...v1, origin: true };
  const denied: FastifyCorsOptions = { ...v1, origin: false };
  const notV1: FastifyCorsOptions = { origin: false };
  await app.register(cors, {
    strictPreflight: false,
    delegator: (request: FastifyRequest, callback) => {
      const origin = request.headers.origin;
      if (!request.url.startsWith('/v1/')) callback(null, notV1);
      else if (typeof origin !== 'string' || originAllowed(store, request.url, origin)) callback(null, allowed);
      else callback(null, denied);
    },
  });
}

async function server(store: ConfigStore, register: (app: FastifyInstance, store: ConfigStore) => Promise<void>): Promise<FastifyInstance> {
  const app = Fastify();
  await register(app, store);
  app.post('/v1/:org/projects/:project/thing', async () => ({ ok: true }));
  app.get('/health', async () => ({ ok: true }));
  // A route that sets Vary itself: the CORS header must be added to it, not replace it.
  app.get('/v1/acme/projects/shop/varied', async (_request, reply) => {
    reply.header('Vary', 'Accept-Encoding');
    return { ok: true };
  });
  await app.ready();
  return app;
}

const METHODS = ['POST', 'OPTIONS', 'GET'] as const;
const URLS = [
  '/v1/acme/projects/shop/thing', '/v1/acme/projects/tight/thing', '/v1/acme/projects/nope/thing',
  '/v1/acme/projects/%E0%A4%A/thing', '/v1/acme/projects/shop/varied', '/v1/', '/health', '/elsewhere',
];
const ORIGINS = [undefined, '', 'https://shop.example.com', 'https://evil.example', 'null'];
const PREFLIGHTS: Record<string, string>[] = [
  {}, { 'access-control-request-method': 'POST' },
  { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, x-custom' },
];

async function answers(app: FastifyInstance): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const method of METHODS) {
    for (const url of URLS) {
      for (const origin of ORIGINS) {
        for (const extra of PREFLIGHTS) {
          const headers: Record<string, string> = { ...extra };
          if (origin !== undefined) headers.origin = origin;
          const res = await app.inject({ method, url, headers, ...(method === 'POST' ? { payload: {} } : {}) });
          const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...rest } = res.headers;
          out.push({ method, url, origin, extra, status: res.statusCode, headers: rest, body: res.body });
        }
      }
    }
  }
  return out;
}

describe('registerCors', () => {
  it('answers as the @fastify/cors delegator registration did, before and after a config reload', async () => {
    const config = testConfig();
    const storeA = new ConfigStore(config);
    const storeB = new ConfigStore(config);
    const before = await server(storeA, registerPluginCors);
    const after = await server(storeB, registerCors);
    try {
      assert.deepEqual(await answers(after), await answers(before));
      // A reload that gives `shop` an allow-list and drops `tight`'s: the new config applies at once on both.
      const reloaded = testConfig();
      const projects = reloaded.organizations.acme?.projects;
      assert.ok(projects?.shop && projects.tight);
      projects.shop.allowedOrigins = ['https://evil.example'];
      delete projects.tight.allowedOrigins;
      storeA.replace(reloaded);
      storeB.replace(reloaded);
      const afterReload = await answers(after);
      assert.deepEqual(afterReload, await answers(before));
      assert.ok(afterReload.some((a) => JSON.stringify(a).includes('"access-control-allow-origin":"https://evil.example"')));
    } finally {
      await before.close();
      await after.close();
    }
  });
});
