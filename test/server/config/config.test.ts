// Config validation as a table of cases, the shipped svc.config.json, and the CLI's start/reload rules.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { loadConfigFile } from '../../../server/config/load-config.js';
import { unknownFields } from '../../../server/config/unknown-fields.js';
import { validateConfig } from '../../../server/config/validate-config.js';
import pg from 'pg';
import { PG_ADMIN_URL } from '../helpers/storage-drivers.js';

const REPO = join(import.meta.dirname, '..', '..', '..');
const SHOP = 'organizations.acme.projects.shop';

function shipped(): ServiceConfigFile {
  return JSON.parse(readFileSync(join(REPO, 'svc.config.json'), 'utf8')) as ServiceConfigFile;
}

type Mutate = (shop: Record<string, unknown>, root: Record<string, unknown>) => void;
const exp = (shop: Record<string, unknown>, i: number) => (shop.experiences as Record<string, unknown>[])[i] as Record<string, unknown>;

const metric = (shop: Record<string, unknown>, i: number) => (shop.metrics as Record<string, unknown>[])[i] as Record<string, unknown>;

const CASES: { name: string; mutate: Mutate; message: string }[] = [
  { name: 'experience named like a re-randomisation', mutate: (s) => { s.experiences = [{ name: 'hero#1', body: {} }]; }, message: `${SHOP}.experiences[0].name: must not contain "#", which names a re-randomisation's assignments` },
  { name: 'admin key malformed', mutate: (_s, r) => { ((r.organizations as Record<string, Record<string, unknown>>).acme!).adminKeys = ['nodot']; }, message: 'organizations.acme.adminKeys[0]: must be a key of the form <id>.<secret>' },
  { name: 'admin key id used by a project key', mutate: (_s, r) => { ((r.organizations as Record<string, Record<string, unknown>>).acme!).adminKeys = ['srv1.other']; }, message: `${SHOP}.apiKeys[0]: key id "srv1" is already used at organizations.acme.adminKeys[0]` },
  { name: 'metrics not an array', mutate: (s) => { s.metrics = {}; }, message: `${SHOP}.metrics: must be an array` },
  { name: 'metric type unknown', mutate: (s) => { metric(s, 0).type = 'quantile'; }, message: `${SHOP}.metrics[0].type: must be one of binomial, count, sum, ratio` },
  { name: 'ratio without a denominator', mutate: (s) => { Object.assign(metric(s, 0), { type: 'ratio', numerator: 'x' }); delete metric(s, 0).event; }, message: `${SHOP}.metrics[0].denominator: must be a non-empty string` },
  { name: 'metric without event', mutate: (s) => { delete metric(s, 1).event; }, message: `${SHOP}.metrics[1].event: must be a non-empty string` },
  { name: 'sum without value', mutate: (s) => { delete metric(s, 2).value; }, message: `${SHOP}.metrics[2].value: must be a non-empty string` },
  { name: 'value on a binomial', mutate: (s) => { metric(s, 0).value = 'price'; }, message: `${SHOP}.metrics[0].value: is only allowed with type "sum"` },
  { name: 'duplicate metric name', mutate: (s) => { metric(s, 1).name = 'purchase'; }, message: `${SHOP}.metrics[1].name: "purchase" is already used by metrics[0]` },
  { name: 'metric name with a comma', mutate: (s) => { metric(s, 1).name = 'a,b'; }, message: `${SHOP}.metrics[1].name: must be at most 64 characters, without a comma` },
  { name: 'where not an object', mutate: (s) => { metric(s, 0).where = 'list = weekly'; }, message: `${SHOP}.metrics[0].where: must be an object` },
  { name: 'windowHours not positive', mutate: (s) => { metric(s, 0).windowHours = 0; }, message: `${SHOP}.metrics[0].windowHours: must be a number > 0` },
  { name: 'cuped not a boolean', mutate: (s) => { metric(s, 2).cuped = 'yes'; }, message: `${SHOP}.metrics[2].cuped: must be true or false` },
  { name: 'cupedDays without cuped', mutate: (s) => { metric(s, 2).cupedDays = 7; }, message: `${SHOP}.metrics[2].cupedDays: is only allowed with "cuped": true` },
  { name: 'cupedDays out of range', mutate: (s) => { metric(s, 2).cuped = true; metric(s, 2).cupedDays = 400; }, message: `${SHOP}.metrics[2].cupedDays: must be a number of days > 0 and <= 365` },
  { name: 'weights not summing to 100', mutate: (s) => { (s.experiences as unknown[]).push({ name: 'x', variations: [{ name: 'a', weight: 60, body: {} }, { name: 'b', weight: 30, body: {} }] }); }, message: `${SHOP}.experiences[3].variations: weights must sum to 100` },
  { name: 'weight not a number', mutate: (s) => { ((exp(s, 0).variations as Record<string, unknown>[])[1] as Record<string, unknown>).weight = '50'; }, message: `${SHOP}.experiences[0].variations[1].weight: must be a number` },
  { name: 'duplicate experience name', mutate: (s) => { exp(s, 2).name = 'hero-banner'; }, message: `${SHOP}.experiences[2].name: "hero-banner" is already used by experiences[0]` },
  { name: 'two kinds', mutate: (s) => { exp(s, 2).feed = 1; }, message: `${SHOP}.experiences[2]: must have exactly one of variations, body or feed` },
  { name: 'no kind', mutate: (s) => { delete exp(s, 2).body; }, message: `${SHOP}.experiences[2]: must have exactly one of variations, body or feed` },
  { name: 'unknown feed', mutate: (s) => { exp(s, 1).feed = 7; }, message: `${SHOP}.experiences[1].feed: no feed with id 7 in feeds` },
  { name: 'traffic over 100', mutate: (s) => { exp(s, 0).traffic = 101; }, message: `${SHOP}.experiences[0].traffic: must be between 0 and 100` },
  { name: 'unknown device', mutate: (s) => { exp(s, 0).devices = ['tablet']; }, message: `${SHOP}.experiences[0].devices[0]: must be "mobile" or "desktop"` },
  { name: 'bad stickiness', mutate: (s) => { exp(s, 0).stickiness = 'device'; }, message: `${SHOP}.experiences[0].stickiness: must be "profile" or "session"` },
  { name: 'condition not an object', mutate: (s) => { exp(s, 0).condition = 'country = NO'; }, message: `${SHOP}.experiences[0].condition: must be an object` },
  { name: 'namespace out of order', mutate: (s) => { exp(s, 0).namespace = ['ns', 0.5, 0.2]; }, message: `${SHOP}.experiences[0].namespace: must satisfy 0 <= start < end <= 1` },
  { name: 'namespace not a tuple', mutate: (s) => { exp(s, 0).namespace = ['ns', 0.5]; }, message: `${SHOP}.experiences[0].namespace: must be [namespaceId, start, end]` },
  { name: 'hashVersion 3', mutate: (s) => { exp(s, 0).hashVersion = 3; }, message: `${SHOP}.experiences[0].hashVersion: must be 1 or 2` },
  { name: 'key without a dot', mutate: (s) => { s.writeKeys = ['web1p4ss']; }, message: `${SHOP}.writeKeys[0]: must be a key of the form <id>.<secret>` },
  { name: 'key id used twice', mutate: (s) => { s.apiKeys = ['web1.other']; }, message: `${SHOP}.writeKeys[0]: key id "web1" is already used at ${SHOP}.apiKeys[0]` },
  { name: 'empty sources', mutate: (s) => { s.sources = []; }, message: `${SHOP}.sources: must list at least one source` },
  { name: 'sources missing', mutate: (s) => { delete s.sources; }, message: `${SHOP}.sources: must be an array` },
  { name: 'feed strategy unknown', mutate: (s) => { (s.feeds as Record<string, unknown>[])[0]!.strategy = 'random'; }, message: `${SHOP}.feeds[0].strategy: must be one of popular, viewed-together, bought-together, recently-viewed, personalized` },
  { name: 'catalog price negative', mutate: (s) => { (s.catalog as Record<string, unknown>[])[3]!.price = -1; }, message: `${SHOP}.catalog[3].price: must be a number >= 0` },
  { name: 'limits zero', mutate: (s) => { s.limits = { writeKeyPerSecond: 0 }; }, message: `${SHOP}.limits.writeKeyPerSecond: must be a number > 0` },
  { name: 'origin with a path', mutate: (s) => { s.allowedOrigins = ['https://a.example/shop']; }, message: `${SHOP}.allowedOrigins[0]: must be an origin like https://shop.example.com (no path) or "*"` },
  { name: 'organizations missing', mutate: (_s, root) => { delete root.organizations; }, message: 'organizations: must be an object' },
];

describe('config validation', () => {
  it('accepts the shipped svc.config.json (the demo project acme/shop with ~30 products)', () => {
    const config = validateConfig(shipped());
    const shop = config.organizations.acme?.projects.shop;
    assert.deepEqual(shop?.experiences?.map((e) => e.name), ['hero-banner', 'home-recs', 'welcome-note']);
    assert.ok((shop?.catalog?.length ?? 0) >= 25);
  });

  for (const c of CASES) {
    it(`names the bad path: ${c.name}`, () => {
      const root = shipped() as unknown as Record<string, unknown>;
      const shop = (((root.organizations as Record<string, unknown> | undefined)?.acme as Record<string, unknown> | undefined)?.projects as Record<string, unknown> | undefined)?.shop as Record<string, unknown>;
      c.mutate(shop, root);
      assert.throws(() => validateConfig(root), (error: Error) => {
        assert.equal(error.message, c.message);
        return true;
      });
    });
  }
});

/** Runs the CLI (server/main.ts through tsx); `onOutput` sees all output so far after each chunk. */
function runCli(env: Record<string, string>, onOutput?: (output: string, pid: number) => void) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: REPO, env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise<{ code: number | null; output: string }>((resolvePromise, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (onOutput && child.pid !== undefined) onOutput(output, child.pid);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => resolvePromise({ code, output }));
  });
}

describe('unknown config fields (warned about at start and on SIGHUP)', () => {
  it('are none in the shipped file, and a misspelt setting is named by its path', () => {
    assert.deepEqual(unknownFields(shipped()), []);
    const file = shipped() as unknown as { organizations: Record<string, any> };
    const shop = file.organizations.acme.projects.shop;
    shop.allowedOrigin = ['https://shop.example'];
    shop.limits = { writeKeyPerSec: 1 };
    shop.experiences[0].trafic = 50;
    file.organizations.acme.adminkeys = [];
    assert.deepEqual(unknownFields(validateConfig(file)), [
      'organizations.acme.adminkeys',
      `${SHOP}.allowedOrigin`,
      `${SHOP}.limits.writeKeyPerSec`,
      `${SHOP}.experiences[0].trafic`,
    ]);
  });
});

describe('a config file that is not JSON', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-config-json-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('is refused with where the error is, never the text around it (it may be a key\'s secret)', async () => {
    for (const [text, where] of [['{\n  "apiKeys": ["srv1.s3cret" "x"]}', / at line 2, column \d+$/], ['{"apiKeys": srv1.s3cret}', /JSON$/]] as const) {
      const file = join(dir, 'svc.config.json');
      writeFileSync(file, text);
      const error = await loadConfigFile(file).then(() => null, (e: Error) => e);
      assert.ok(error instanceof Error);
      assert.match(error.message, /is not valid JSON/);
      assert.match(error.message, where);
      assert.doesNotMatch(error.message, /s3cret/);
    }
  });
});

describe('CLI (server/main.ts)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses to start on an invalid config file, naming the bad path', async () => {
    const bad = shipped();
    const variations = bad.organizations.acme?.projects.shop?.experiences?.[0]?.variations;
    if (variations?.[0]) variations[0].weight = 10;
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify(bad));
    const { code, output } = await runCli({ SVC_CONFIG: file, DATA_DIR: join(dir, 'data-bad') });
    assert.equal(code, 1);
    assert.match(output, /organizations\.acme\.projects\.shop\.experiences\[0\]\.variations: weights must sum to 100/);
  });

  it('notes the file\'s admin keys in the log, and makes the first admin from SVC_FIRST_ADMIN without logging the password', async () => {
    const file = join(dir, 'keys.json');
    writeFileSync(file, JSON.stringify(shipped()));
    const password = 'first admin from the environment';
    const { code, output } = await runCli(
      { SVC_CONFIG: file, DATA_DIR: join(dir, 'data-keys'), SVC_FIRST_ADMIN: 'Root@Example.com', SVC_FIRST_ADMIN_PASSWORD: password },
      (out, pid) => {
        if (/svc service ready/.test(out)) process.kill(pid, 'SIGTERM');
      },
    );
    assert.equal(code, 0);
    assert.match(output, /"organization":"acme","keys":1,"msg":"admin keys in the configuration file act as admin/);
    assert.match(output, /"organization":"acme","email":"Root@Example.com","msg":"first admin added with the password given"/);
    assert.ok(!output.includes(password), 'the password is not logged');
  });

  it('reloads on SIGHUP, keeps the last good config when the reload fails, shuts down on SIGTERM', async () => {
    const file = join(dir, 'good.json');
    writeFileSync(file, JSON.stringify(shipped()));
    let step: 'starting' | 'reloading' | 'stopping' = 'starting';
    const { code, output } = await runCli({ SVC_CONFIG: file, DATA_DIR: join(dir, 'data') }, (out, pid) => {
      if (step === 'starting' && /svc service ready/.test(out)) {
        step = 'reloading';
        writeFileSync(file, '{"organizations": 5}');
        process.kill(pid, 'SIGHUP');
      } else if (step === 'reloading' && /reload failed/.test(out)) {
        step = 'stopping';
        process.kill(pid, 'SIGTERM');
      }
    });
    assert.equal(code, 0);
    assert.match(output, /configuration reload failed; keeping the last good configuration/);
    assert.match(output, /organizations: must be an object/);
    assert.match(output, /shutting down/);
  });

  it('creates the PostgreSQL database DATABASE_URL names when it does not exist yet, then starts', async () => {
    const name = `svc_cli_${randomBytes(5).toString('hex')}`;
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    try {
      const { code, output } = await runCli({ DATABASE_URL: url.toString(), DATA_DIR: join(dir, 'unused') }, (out, pid) => {
        if (/svc service ready/.test(out)) process.kill(pid, 'SIGTERM');
      });
      assert.equal(code, 0, output);
      assert.match(output, /"storage":"postgres"/);
    } finally {
      const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });

  it('says in one JSON line why the database cannot be opened, without a stack trace', async () => {
    const { code, output } = await runCli({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/svc', DATA_DIR: join(dir, 'unused') });
    assert.equal(code, 1);
    const lines = output.trim().split('\n');
    assert.equal(lines.length, 1, output);
    const line = JSON.parse(lines[0]!) as { msg: string; error: string };
    assert.equal(line.msg, 'svc: cannot open the database');
    assert.match(line.error, /ECONNREFUSED/);
    assert.doesNotMatch(output, /\n\s+at /);
  });

  it('refuses a PORT that is not a port, in one line', async () => {
    const { code, output } = await runCli({ PORT: 'eighty', DATA_DIR: join(dir, 'unused') });
    assert.equal(code, 1);
    assert.equal(output.trim(), 'svc: PORT must be a whole number from 0 to 65535, not "eighty"');
  });

  it('gives up on a database server that accepts the connection and never answers, in one JSON line', async () => {
    // Accepts every connection and says nothing: a server hung, or a port that is not PostgreSQL's.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolveListen) => silent.listen(0, '127.0.0.1', resolveListen));
    try {
      const { port } = silent.address() as net.AddressInfo;
      const { code, output } = await runCli({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/svc`, DATA_DIR: join(dir, 'unused') });
      assert.equal(code, 1);
      const line = JSON.parse(output.trim()) as { msg: string; error: string };
      assert.equal(line.msg, 'svc: cannot open the database');
      assert.match(line.error, /timeout/i);
    } finally {
      silent.close();
    }
  });
});
