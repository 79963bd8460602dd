// Our real service for the browser tests that need it (test/recommendations: the feed route, tracking):
// `node dist/server.mjs` (npm test builds dist before the browser tests) on a free loopback port, with a
// fresh SQLite directory and test/fixtures/recommendations.config.json, behind the test runner's own
// origin: `/v1/*` (and OpenFeature's `/ofrep/*`) is proxied to it, so pages call `location.origin + '/v1'` with no
// CORS in the way.
// A second instance of it stores in PostgreSQL (a database of its own, made for the run and dropped after) behind
// `/pg/v1/*`, for the tests that run a story on both databases. It starts on the first request for it, so a run
// whose tests never ask for it pays nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

const SERVER = 'dist/server.mjs';
const CONFIG = 'test/fixtures/recommendations.config.json';
const START_TIMEOUT_MS = 15000;
/** Where the PostgreSQL instance's database is created (trust auth on every machine of this project). */
const PG_ADMIN_URL = process.env.SVC_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

// An organization with single sign-on beside the fixture's, for the console's sign-in tests (admin/sign-in.test.ts):
// they check the link the console offers, so its provider is never reached. Written next to the service's data.
const SSO_ORGANIZATION = {
  adminKeys: ['ssotest.s3cret'],
  oidc: {
    issuer: 'http://127.0.0.1:9/', clientId: 'svc-console', clientSecret: 'not-a-secret',
    redirectUri: 'http://localhost/admin/oidc/callback',
  },
  projects: { web: { apiKeys: ['srvsso.s3cret'], writeKeys: ['websso.p4ss'], sources: ['web'] } },
};

function configWithSso(dir) {
  const config = JSON.parse(readFileSync(CONFIG, 'utf8'));
  config.organizations.ssotest = SSO_ORGANIZATION;
  const path = join(dir, 'service-under-test.config.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function healthy(port) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz', timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/**
 * Spawns the service on a free port with a fresh data directory and `env` (DATABASE_URL: where it stores) and waits
 * for it to be healthy: `{ child, dataDir, port }`, or null (said on the console) when it cannot start.
 */
async function startService(env) {
  if (!existsSync(SERVER)) {
    console.warn(`[service-under-test] ${SERVER} is missing (run npm run build): the service answers 503`);
    return null;
  }
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-wtr-'));
  // Bandits are looked at every 200 ms rather than every minute, so that a test sees the service's own reweight job act
  // (admin/results-page-bandit.test.ts); only running bandits are looked at, and no other test makes one. Webhooks may
  // go to loopback, where the test runner's receiver answers (admin/webhooks-page.test.ts).
  const child = spawn(process.execPath, [SERVER], {
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, SVC_CONFIG: configWithSso(dataDir), LOG_LEVEL: 'warn',
      BANDIT_INTERVAL_MS: '200', WEBHOOKS_ALLOW_LOOPBACK: '1', ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const instance = { child, dataDir, port };
  const exited = new Promise((resolve) => child.once('exit', () => resolve(false)));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await healthy(port)) return instance;
    if (await Promise.race([exited, new Promise((r) => setTimeout(() => r(true), 100))]) === false) break;
  }
  console.warn(`[service-under-test] the service (${env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}) did not become healthy: it answers 503`);
  await stopService(instance);
  return null;
}

async function stopService(instance) {
  const { child, dataDir } = instance;
  if (child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([gone, new Promise((r) => setTimeout(r, 3000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  rmSync(dataDir, { recursive: true, force: true });
}

/** Runs one statement on the PostgreSQL server's admin database (CREATE / DROP DATABASE). */
async function pgAdmin(sql) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The service on a database of its own (`svc_wtr_<random>`): `{ instance, database }`, instance null if it failed. */
async function startPostgresService() {
  const database = `svc_wtr_${randomBytes(6).toString('hex')}`;
  try {
    await pgAdmin(`CREATE DATABASE ${database}`);
  } catch (error) {
    console.warn(`[service-under-test] PostgreSQL at ${PG_ADMIN_URL} is not usable (${error.message}): /pg/v1 answers 503`);
    return { instance: null, database: null };
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${database}`;
  return { instance: await startService({ DATABASE_URL: url.toString() }), database };
}

/** Proxies the request to the instance, its path being `path`. */
function proxy(ctx, instance, path) {
  ctx.respond = false;
  // The browser's Host goes along, as a reverse proxy in front of the service keeps it: a write with the console's
  // session cookie must come from the origin the browser sees (its Origin header), which the service compares.
  const host = ctx.req.headers.host ?? `127.0.0.1:${instance.port}`;
  return new Promise((resolve) => {
    const upstream = request(
      { host: '127.0.0.1', port: instance.port, method: ctx.method, path, headers: { ...ctx.req.headers, host } },
      (res) => {
        ctx.res.writeHead(res.statusCode ?? 502, res.headers);
        res.pipe(ctx.res);
        res.on('end', resolve);
      },
    );
    upstream.on('error', () => {
      if (!ctx.res.headersSent) ctx.res.writeHead(502, { 'Content-Type': 'application/json' });
      ctx.res.end('{"error":{"code":"bad_gateway","message":"The service under test did not answer."}}');
      resolve();
    });
    ctx.req.pipe(upstream);
  });
}

function notStarted(ctx) {
  ctx.status = 503;
  ctx.body = { error: { code: 'service_not_started', message: 'The service under test is not running.' } };
}

/**
 * `{ plugin, middleware }`: the plugin starts the SQLite instance and stops both, the middleware proxies `/v1/*` and
 * `/ofrep/*` to the SQLite instance and `/pg/v1/*`, `/pg/ofrep/*` (as `/v1/*`, `/ofrep/*`) to the PostgreSQL one,
 * starting it on the first such request.
 */
export function serviceUnderTest() {
  let ready = Promise.resolve(null);
  let postgres;

  const plugin = {
    name: 'service-under-test',
    serverStart() {
      ready = startService({ DATABASE_URL: '' });
      return ready;
    },
    async serverStop() {
      const sqlite = await ready;
      if (sqlite) await stopService(sqlite);
      if (postgres) {
        const { instance, database } = await postgres;
        if (instance) await stopService(instance);
        if (database) await pgAdmin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((error) => {
          console.warn(`[service-under-test] could not drop ${database}: ${error.message}`);
        });
      }
    },
  };

  async function middleware(ctx, next) {
    // Test-only read-back of what the service stored: the consent records of one profile, straight from its
    // SQLite file (the service has no read endpoint for them).
    if (ctx.path === '/__svc-test/consents') {
      const sqlite = await ready;
      if (!sqlite) return void (ctx.status = 503);
      const { default: Database } = await import('better-sqlite3');
      const db = new Database(join(sqlite.dataDir, 'svc.db'), { readonly: true, fileMustExist: true });
      try {
        ctx.body = db
          .prepare('SELECT project, profile_id AS profileId, source_id AS sourceId, category, action, valid_until AS validUntil, source, banner_version AS version, page FROM consents WHERE profile_id = ? ORDER BY id')
          .all(String(ctx.query.profileId ?? ''));
      } finally {
        db.close();
      }
      return;
    }
    // Test-only: an endpoint the service gave up on, as it leaves one failing for 24 hours (the service's own wait is
    // a day): disabled with its reason, its pending deliveries failed (admin/webhooks-page.test.ts).
    if (ctx.path === '/__svc-test/webhook-gave-up') {
      const sqlite = await ready;
      if (!sqlite) return void (ctx.status = 503);
      const { default: Database } = await import('better-sqlite3');
      const db = new Database(join(sqlite.dataDir, 'svc.db'), { fileMustExist: true, timeout: 5000 });
      try {
        const id = String(ctx.query.endpoint ?? '');
        const since = Date.now() - 24 * 3_600_000;
        const reason = `failing since ${new Date(since).toISOString()}; last attempt: the receiver answered 500`;
        db.prepare('UPDATE webhook_endpoints SET enabled = 0, failing_since = ?, disabled_reason = ?, version = version + 1 WHERE id = ?').run(since, reason, id);
        db.prepare("UPDATE webhook_deliveries SET status = 'failed', next_at = NULL, last_error = COALESCE(last_error, 'not sent: the endpoint was disabled') WHERE endpoint_id = ? AND status = 'pending'").run(id);
        ctx.status = 204;
      } finally {
        db.close();
      }
      return;
    }
    // Test-only webhook receiver (admin/webhooks-page.test.ts): `/__svc-test/webhook/<status>` answers that status to
    // the service under test, which may send to loopback.
    const hook = /^\/__svc-test\/webhook\/([1-5][0-9]{2})$/.exec(ctx.path);
    if (hook) {
      ctx.req.resume();
      ctx.status = Number(hook[1]);
      ctx.body = { received: true };
      return;
    }
    // Test-only slow network: `/slow/<ms>/…` is `/…` (the service, or a file such as the SDK) answered that much later.
    const slow = /^\/slow\/(\d+)(\/.*)$/.exec(ctx.url);
    if (slow) {
      await new Promise((resolve) => setTimeout(resolve, Number(slow[1])));
      ctx.url = slow[2];
    }
    if (ctx.path.startsWith('/pg/v1/') || ctx.path.startsWith('/pg/ofrep/')) {
      postgres ??= startPostgresService();
      const { instance } = await postgres;
      if (!instance) return notStarted(ctx);
      return proxy(ctx, instance, ctx.url.slice('/pg'.length));
    }
    if (!ctx.path.startsWith('/v1/') && !ctx.path.startsWith('/ofrep/')) return next();
    const sqlite = await ready;
    if (!sqlite) return notStarted(ctx);
    return proxy(ctx, sqlite, ctx.url);
  }

  return { plugin, middleware };
}
