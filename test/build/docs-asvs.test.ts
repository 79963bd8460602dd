import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

// The security checklist promises, row by row, a test that fails when the row's promise breaks: each test file it names
// exists, and each test it quotes (a title, or the part of one before or between "…") is in that file.

const ROOT = new URL('../../', import.meta.url);
/** Where a named test file may be: the service's tests sit in a folder per domain (test/server/<domain>/). */
const FOLDERS = [
  ...readdirSync(new URL('test/server/', ROOT), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `test/server/${d.name}/`),
  'test/build/', 'test/', 'admin/',
];

function testFile(name: string): string | null {
  for (const folder of FOLDERS) {
    const url = new URL(`${folder}${name}`, ROOT);
    if (existsSync(url)) return readFileSync(url, 'utf8');
  }
  return null;
}

/** The Test column of every row of the checklist's tables. */
function testCells(markdown: string): { item: string; cell: string }[] {
  return markdown.split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Item') && !line.startsWith('|---'))
    .map((line) => {
      const cells = line.split(' | ');
      return { item: cells[0]!.slice(2), cell: cells[cells.length - 1]!.replace(/ \|$/, '') };
    });
}

/** The file names and quoted titles of a cell, in order: a title belongs to the file named last before it. */
function references(cell: string): { file: string; titles: string[] }[] {
  const found: { file: string; titles: string[] }[] = [];
  for (const match of cell.matchAll(/`([\w.-]+\.test\.ts)`|"([^"]+)"/g)) {
    if (match[1] !== undefined) found.push({ file: match[1], titles: [] });
    else found.at(-1)?.titles.push(match[2]!);
  }
  return found;
}

/** Whether the source holds the title: its longest piece between ellipses, as written or with quotes escaped. */
function holds(source: string, title: string): boolean {
  const piece = title.split('…').map((p) => p.trim()).sort((a, b) => b.length - a.length)[0]!;
  return [piece, piece.replaceAll("'", "\\'"), piece.replaceAll('"', '\\"')].some((p) => source.includes(p));
}

describe('docs/security-asvs.md', () => {
  const markdown = readFileSync(new URL('docs/security-asvs.md', ROOT), 'utf8');
  const rows = testCells(markdown);

  it('has rows that name tests', () => {
    assert.ok(rows.filter((r) => references(r.cell).length > 0).length >= 30, `${rows.length} rows`);
  });

  it('names only test files that exist, and quotes only tests that are in them', () => {
    const missing: string[] = [];
    for (const { item, cell } of rows) {
      for (const { file, titles } of references(cell)) {
        const source = testFile(file);
        if (source === null) missing.push(`${item}: no file ${file}`);
        else for (const title of titles) if (!holds(source, title)) missing.push(`${item}: ${file} has no test "${title}"`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
