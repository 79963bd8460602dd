// No source file over 400 lines: a file past that is doing two things, and a newcomer reads it whole to change one.
// Tests, bench scripts and generated files are not counted.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = resolve(import.meta.dirname, '..', '..');
const FOLDERS = ['src', 'plugins', 'bundles', 'admin', 'server'];
const MAX_LINES = 400;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('source files', () => {
  it(`are at most ${MAX_LINES} lines each`, () => {
    const files = FOLDERS.flatMap(sources);
    assert.ok(files.length > 100, 'the walk found the sources');
    const long = files
      .map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    assert.deepEqual(long, []);
  });
});
