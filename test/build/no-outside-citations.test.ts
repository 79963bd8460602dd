// The repository explains itself: no source, test, bench or doc cites a guide that lives outside it (a style or design
// guide by section number, its file, or a folder beside the checkout), which a reader of a clone cannot open. A comment
// says the reason itself, or cites a published source (a paper, a project's repository).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = resolve(import.meta.dirname, '..', '..');
const FOLDERS = ['server', 'src', 'plugins', 'admin', 'wire', 'bundles', 'bench', 'test', 'docs', 'demo'];
const TOP_FILES = ['README.md', 'esbuild.config.mjs', 'web-test-runner.config.mjs', 'custom-elements-manifest.config.mjs', 'package.json'];
const TEXT = /\.(ts|mts|mjs|js|json|md|html|css|sql)$/;
const SKIPPED = new Set(['node_modules', 'dist']);
/** This file spells out what it looks for. */
const SELF = 'test/build/no-outside-citations.test.ts';

// Built from parts so that this file's own source does not hold them in full.
const GUIDE = ['STY' + 'LE', 'DESI' + 'GN', 'TEST' + 'ING'].join('|');
const CITATIONS: [string, RegExp][] = [
  ['a guide by section', new RegExp(`\\b(?:${GUIDE})(?:\\.md)?\\s*§?\\s*\\d`)],
  ['a guide\'s file', new RegExp(`\\b(?:${GUIDE})\\.md\\b`)],
  ['the folder beside the checkout', new RegExp(`\\.\\./${'sha' + 'red'}\\b|/work/${'sha' + 'red'}\\b`)],
];

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return files(path);
    return TEXT.test(entry.name) ? [path] : [];
  });
}

describe('citations of guides outside the repository', () => {
  const all = [...FOLDERS.flatMap((folder) => files(folder)), ...TOP_FILES].filter((file) => file !== SELF);

  it('reads the sources, tests, benches and docs', () => {
    for (const folder of FOLDERS) assert.ok(all.some((file) => file.startsWith(`${folder}/`)), folder);
  });

  for (const [what, pattern] of CITATIONS) {
    it(`none cites ${what}`, () => {
      const found = all.flatMap((file) => readFileSync(join(ROOT, file), 'utf8').split('\n')
        .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])));
      assert.deepEqual(found, []);
    });
  }

  it('would find one: the patterns match the citations they are for', () => {
    const examples = [`(${'STY' + 'LE'} 6)`, `${'DESI' + 'GN'} 3.2`, `${'DESI' + 'GN'}.md`, `../${'sha' + 'red'}/conformance`];
    for (const example of examples) assert.ok(CITATIONS.some(([, pattern]) => pattern.test(example)), example);
  });
});
