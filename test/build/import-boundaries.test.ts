// The boundaries between the repository's parts, read from the import statements themselves: a rule that only a
// comment states drifts; one a test reads holds.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** Every non-test TypeScript file below `folder`, relative to the repository root. */
function sources(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) found.push(path);
    }
  };
  walk(folder);
  return found;
}

/** The repository paths a file imports (static and dynamic relative imports; packages are not paths). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
  return specifiers.map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)).replace(/\.js$/, '.ts'));
}

/** `file → import` pairs of `folder`'s files whose import breaks `allowed`. */
function violations(folder: string, allowed: (target: string) => boolean): string[] {
  return sources(folder).flatMap((file) => importsOf(file).filter((target) => !allowed(target)).map((target) => `${file} → ${target}`));
}

const inside = (target: string, folder: string): boolean => target.startsWith(`${folder}/`);

describe('import boundaries', () => {
  it('reads imports: the rules below see something to check', () => {
    assert.ok(importsOf('bundles/service.ts').includes('plugins/auto-track/index.ts'));
  });

  it('plugins use the core only through src/index.ts and src/plugin-api.ts', () => {
    assert.deepEqual(violations('plugins', (t) => !inside(t, 'src') || t === 'src/index.ts' || t === 'src/plugin-api.ts'), []);
  });

  it('the core (src/) imports no plugin, bundle entry or service code', () => {
    assert.deepEqual(violations('src', (t) => !['plugins', 'bundles', 'server'].some((f) => inside(t, f))), []);
  });

  it('the service shares only wire shapes with the browser code: events (src/event.ts) and results (src/results-answer.ts)', () => {
    const shared = ['src/event.ts', 'src/results-answer.ts'];
    assert.deepEqual(violations('server', (t) => !['plugins', 'bundles'].some((f) => inside(t, f)) && (!inside(t, 'src') || shared.includes(t))), []);
  });

  it('storage runs the domains\' programs and imports no domain: only its own files', () => {
    assert.deepEqual(violations('server/storage', (t) => inside(t, 'server/storage')), []);
  });

  it('the Choose engine imports only its own files and the config types', () => {
    assert.deepEqual(violations('server/choose/engine', (t) => inside(t, 'server/choose/engine') || t === 'server/config/config-types.ts'), []);
  });

  it('the Choose engine keeps no state of its own: no module-level variable, map or set', () => {
    const state = /^(?:export\s+)?(?:let|var)\s|^(?:export\s+)?const\s+\w+\s*(?::[^=]+)?=\s*new\s+(?:Weak)?(?:Map|Set)\b/m;
    assert.deepEqual(sources('server/choose/engine').filter((file) => state.test(readFileSync(join(ROOT, file), 'utf8'))), []);
  });

  it('the admin console talks to the service over HTTP only: its own files and the results answer\'s types', () => {
    assert.deepEqual(violations('admin', (t) => inside(t, 'admin') || t === 'src/results-answer.ts'), []);
  });

  it('plugins import no bundle entry and no other plugin', () => {
    const own = (file: string, target: string) => target.split('/')[1] === file.split('/')[1];
    const bad = sources('plugins').flatMap((file) => importsOf(file)
      .filter((t) => inside(t, 'bundles') || (inside(t, 'plugins') && !own(file, t)))
      .map((t) => `${file} → ${t}`));
    assert.deepEqual(bad, []);
  });
});
