// Our real service for the browser tests that need it (test/recommendations: the feed route, tracking):
// `node dist/server.mjs` (npm test builds dist before the browser tests) on a free loopback port, with a
// fresh SQLite directory and test/fixtures/recommendations.config.json, behind the test runner's own
// origin: `/v1/*` is proxied to it, so pages call `location.origin + '/v1'` with no CORS in the way.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SERVER = 'dist/server.mjs';
const CONFIG = 'test/fixtures/recommendations.config.json';
const START_TIMEOUT_MS = 15000;

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

/** `{ plugin, middleware }`: the plugin starts and stops the service, the middleware proxies `/v1/*` to it. */
export function serviceUnderTest() {
  let child;
  let dataDir;
  let port;
  let ready = Promise.resolve(false);

  async function start() {
    if (!existsSync(SERVER)) {
      console.warn(`[service-under-test] ${SERVER} is missing (run npm run build): /v1 answers 503`);
      return false;
    }
    port = await freePort();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-wtr-'));
    child = spawn(process.execPath, [SERVER], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, SVC_CONFIG: configWithSso(dataDir), LOG_LEVEL: 'warn', DATABASE_URL: '' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', () => resolve(false)));
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (await healthy(port)) return true;
      if (await Promise.race([exited, new Promise((r) => setTimeout(() => r(true), 100))]) === false) break;
    }
    console.warn('[service-under-test] the service did not become healthy: /v1 answers 503');
    return false;
  }

  const plugin = {
    name: 'service-under-test',
    serverStart() {
      ready = start();
      return ready;
    },
    async serverStop() {
      if (child && child.exitCode === null) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([gone, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };

  async function middleware(ctx, next) {
    // Test-only read-back of what the service stored: the consent records of one profile, straight from its
    // SQLite file (the service has no read endpoint for them).
    if (ctx.path === '/__svc-test/consents') {
      if (!(await ready)) return void (ctx.status = 503);
      const { default: Database } = await import('better-sqlite3');
      const db = new Database(join(dataDir, 'svc.db'), { readonly: true, fileMustExist: true });
      try {
        ctx.body = db
          .prepare('SELECT project, profile_id AS profileId, source_id AS sourceId, category, action, valid_until AS validUntil, source, banner_version AS version, page FROM consents WHERE profile_id = ? ORDER BY id')
          .all(String(ctx.query.profileId ?? ''));
      } finally {
        db.close();
      }
      return;
    }
    // Test-only slow network: `/slow/<ms>/…` is `/…` (the service, or a file such as the SDK) answered that much later.
    const slow = /^\/slow\/(\d+)(\/.*)$/.exec(ctx.url);
    if (slow) {
      await new Promise((resolve) => setTimeout(resolve, Number(slow[1])));
      ctx.url = slow[2];
    }
    if (!ctx.path.startsWith('/v1/')) return next();
    if (!(await ready)) {
      ctx.status = 503;
      ctx.body = { error: { code: 'service_not_started', message: 'The service under test is not running.' } };
      return;
    }
    ctx.respond = false;
    // The browser's Host goes along, as a reverse proxy in front of the service keeps it: a write with the console's
    // session cookie must come from the origin the browser sees (its Origin header), which the service compares.
    const host = ctx.req.headers.host ?? `127.0.0.1:${port}`;
    await new Promise((resolve) => {
      const upstream = request(
        { host: '127.0.0.1', port, method: ctx.method, path: ctx.url, headers: { ...ctx.req.headers, host } },
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

  return { plugin, middleware };
}
