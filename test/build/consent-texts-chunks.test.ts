// The consent banner's built-in texts in the ESM build (dist/esm, what a site's bundler reads): each language is a
// chunk of its own, reached only by a dynamic import() with a literal path, so that a page fetches only the language
// its banner shows. `npm test` builds before this runs.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = resolve(import.meta.dirname, '..', '..');
const ESM = join(ROOT, 'dist', 'esm');
const ENTRY = join(ESM, 'plugins', 'consent-banner', 'index.js');
/** A text only each language's module has: its accept-all label. */
const ACCEPT = { en: 'Accept all', de: 'Alle akzeptieren', fr: 'Tout accepter', es: 'Aceptar todo' };

/** The files of dist/esm (chunks included), relative paths. */
function files(dir = ESM): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : []);
}

/** The files a module imports statically (`import … from './x.js'`, `export … from`), transitively. */
function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const m of readFileSync(file, 'utf8').matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"](\.[^'"]+)['"]/g)) {
    staticClosure(resolve(dirname(file), m[1]!), seen);
  }
  return seen;
}

describe('the consent banner\'s texts in the ESM build', () => {
  it('are one chunk per language, each loaded by a dynamic import() of the banner, none statically', () => {
    assert.ok(existsSync(ENTRY), `${ENTRY} is missing: run npm run build`);
    const dynamic = [...readFileSync(ENTRY, 'utf8').matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map((m) => resolve(dirname(ENTRY), m[1]!));
    const eager = staticClosure(ENTRY);
    for (const [language, accept] of Object.entries(ACCEPT)) {
      const holders = files().filter((f) => readFileSync(f, 'utf8').includes(accept));
      assert.equal(holders.length, 1, `${language}: ${accept} is in ${holders.length} files`);
      assert.ok(dynamic.includes(holders[0]!), `${language}: its chunk is imported dynamically by the banner`);
      assert.ok(!eager.has(holders[0]!), `${language}: its chunk is not loaded with the banner`);
      for (const [other, text] of Object.entries(ACCEPT)) {
        if (other !== language) assert.ok(!readFileSync(holders[0]!, 'utf8').includes(text), `${language}'s chunk holds ${other}`);
      }
    }
  });
});
