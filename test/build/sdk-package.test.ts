// The SDK package as `npm install svc-sdk` gets it: browser code and its two runtime dependencies, no service.
// `npm test` builds before this runs; the install below comes from npm's cache when it can.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const SERVICE_PACKAGES = ['fastify', '@fastify/static', '@fastify/rate-limit', 'pg', 'better-sqlite3', 'prom-client', 'jstat'];
const npm = (args: string[], cwd: string): string =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

/** Names of the packages in a node_modules folder (scoped ones as `@scope/name`). */
function installed(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((n) => !n.startsWith('.')).flatMap((n) =>
    n.startsWith('@') ? readdirSync(join(dir, n)).map((m) => `${n}/${m}`) : [n]);
}

/** A package and everything its `dependencies` pull in, read from this repository's node_modules. */
function closure(names: string[], seen = new Set<string>()): Set<string> {
  for (const name of names) {
    if (seen.has(name)) continue;
    seen.add(name);
    const pkg = JSON.parse(readFileSync(join('node_modules', name, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    closure(Object.keys(pkg.dependencies ?? {}), seen);
  }
  return seen;
}

describe('the SDK package', () => {
  const work = mkdtempSync(join(tmpdir(), 'svc-sdk-pack-'));
  after(() => rmSync(work, { recursive: true, force: true }));

  const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], process.cwd())) as { filename: string; files: { path: string }[] }[];

  it('ships the browser builds, types and the elements manifest, and no service code', () => {
    const files = packed!.files.map((f) => f.path);
    for (const needed of ['dist/service.js', 'dist/service-core.js', 'dist/esm/index.js', 'dist/types/src/index.d.ts', 'dist/custom-elements.json']) {
      assert.ok(files.includes(needed), `${needed} is missing from the package`);
    }
    assert.deepEqual(files.filter((f) => /(^|\/)server|\.mjs(\.map)?$/.test(f)), []);
  });

  it('declares lit and idb-keyval as its only production dependencies', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string>; exports: Record<string, unknown> };
    assert.deepEqual(Object.keys(pkg.dependencies).sort(), ['idb-keyval', 'lit']);
    assert.equal(pkg.exports['./server'], undefined);
  });

  it('installs lit and idb-keyval with what they need, and nothing of the service', () => {
    const app = join(work, 'app');
    execFileSync('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'a-site', version: '1.0.0', private: true }));
    npm(['install', resolve(work, packed!.filename), '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], app);
    const got = installed(join(app, 'node_modules')).filter((n) => n !== 'svc-sdk');
    for (const name of SERVICE_PACKAGES) assert.ok(!got.includes(name), `${name} was installed with the SDK`);
    const allowed = closure(['lit', 'idb-keyval']);
    assert.deepEqual(got.filter((n) => !allowed.has(n)), [], 'only lit, idb-keyval and their dependencies are installed');
    assert.ok(got.includes('lit') && got.includes('idb-keyval'));
  });
});
