// Exports as CSV open safely in a spreadsheet whichever separator it splits on: `,`, or `;` where the decimal mark is
// a comma. A careless import splits on the separator even inside quotes (and on line breaks), so quoting a cell is not
// enough; no piece of a cell, however the file is split, may start a formula (=, +, -, @, tab or CR, after spaces).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { toCsv } from '../../../server/privacy/csv.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { useApp } from '../helpers/use-test-app.js';

type Separator = ',' | ';';
const SEPARATORS: Separator[] = [',', ';'];

/** Splits on the separator and on line breaks, ignoring quotes: the careless spreadsheet. */
function splitCarelessly(csv: string, separator: Separator): string[] {
  return csv.split(/\r\n|[\r\n]/).flatMap((line) => line.split(separator));
}

/** RFC 4180 with the given separator: a quote opens a cell only at its start, `""` inside quotes is one quote. */
function parseQuoted(csv: string, separator: Separator): string[] {
  const cells: string[] = [];
  let at = 0;
  while (at < csv.length) {
    let text = '';
    if (csv[at] === '"') {
      at++;
      while (at < csv.length) {
        if (csv[at] === '"' && csv[at + 1] === '"') { text += '"'; at += 2; }
        else if (csv[at] === '"') { at++; break; }
        else text += csv[at++];
      }
    }
    while (at < csv.length && csv[at] !== separator && csv[at] !== '\r' && csv[at] !== '\n') text += csv[at++];
    cells.push(text);
    if (csv[at] === '\r' && csv[at + 1] === '\n') at += 2;
    else at++;
  }
  return cells;
}

const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Why a cell would run as a formula, or null: its first character after whitespace (tab and CR among it, which an
 * import may drop) and quotes (which a careless import may strip) is =, +, - or @, and it is not simply a number. */
function formulaIn(cell: string): string | null {
  const bare = cell.replace(/^[\s"]+/, '').replace(/[\s"]+$/, '');
  if (/^[=+\-@]/.test(bare) && !PLAIN_NUMBER.test(bare)) return `starts with ${bare[0]}`;
  return null;
}

/** Every cell of the CSV read four ways that would run as a formula, with how it was read. */
function formulas(csv: string): string[] {
  const found: string[] = [];
  for (const separator of SEPARATORS) {
    for (const [how, cells] of [['careless', splitCarelessly(csv, separator)], ['quoted', parseQuoted(csv, separator)]] as const) {
      for (const cell of cells) {
        const why = formulaIn(cell);
        if (why !== null) found.push(`${how} "${separator}" read: ${JSON.stringify(cell)} ${why}`);
      }
    }
  }
  return found;
}

/** Values a spreadsheet would run, in every place one can hide. */
const HOSTILE: unknown[] = [
  "x;=cmd|' /C calc'!A0", 'a,=1', ' =1', '\t=1', '"=1', '=1', '+1+cmd|x', '-2+3', '@SUM(1)', '\r=1', '\n=1', 'a\n-1+1',
  'a; \u00a0@x', 'a;"=1', '  ;  +x', 'a,;=1', "'=already marked", { note: "x;=cmd|' /C calc'!A0" }, { a: 'b', c: '=1' },
  ['=1', '-x', 1, -1], [-1, -2.5], { n: -1, s: 'a;-b' }, -1, -2.5e-7,
];

describe('CSV in a spreadsheet', () => {
  for (const value of HOSTILE) {
    it(`no cell starts a formula, read with , or ;: ${JSON.stringify(value)}`, () => {
      // The value in the first column, where a file read with ";" runs it on into the next cells.
      const csv = toCsv([{ value, next: '2+cmd|x' }]);
      assert.deepEqual(formulas(csv), [], csv);
    });
  }

  /** What a cell reads as in a spreadsheet with the file's own separator: values change only where they must. */
  const READS: [unknown, string][] = [
    [-1, "'-1"], [2.5e-7, '2.5e-7'], ['-1', "'-1"], [{ n: -1 }, '{"n":-1}'], ['+33 6 12', "'+33 6 12"], ['x,y', 'x,y'], ['x;y', 'x;y'],
    ["x;=cmd|' /C calc'!A0", "x;'=cmd|' /C calc'!A0"], ['a,=1', "a,'=1"], ['"=1', `'"=1`], ['\tx', "'\tx"], ['\r=1', "'\r'=1"], ['say "hi"', 'say "hi"'],
    [{ note: '=1+1' }, '{"note":"=1+1"}'], [[1, -1], "[1,'-1]"], [null, ''], [true, 'true'],
  ];
  for (const [value, read] of READS) {
    it(`${JSON.stringify(value)} reads as ${JSON.stringify(read)} with ","`, () => {
      assert.deepEqual(parseQuoted(toCsv([{ value }]), ','), ['value', read]);
    });
  }

  it('no cell starts a formula for any row of hostile text, numbers and nested values (property)', () => {
    const text = fc.string({ unit: fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', ' ', '\u00a0', '"', "'", ',', ';', 'a', '1', '.', '|'), maxLength: 24 });
    const value = fc.oneof(text, fc.double({ noNaN: true }), fc.integer(), fc.dictionary(text, text, { maxKeys: 3 }), fc.array(fc.oneof(text, fc.integer()), { maxLength: 4 }));
    const seed = 46;
    fc.assert(fc.property(fc.dictionary(fc.string({ maxLength: 4 }), value, { maxKeys: 4 }), (row) => {
      const csv = toCsv([row]);
      assert.deepEqual(formulas(csv), [], csv);
    }), { seed, numRuns: 2000, verbose: true });
  });
});

describe('consent records as CSV from the service', () => {
  const h = useApp(SQLITE_DRIVER, () => {
    const config = testConfig();
    config.organizations.acme!.adminKeys = ['adm1.s3cret'];
    return { config };
  });

  it('a hostile page, version and email in a consent record start no formula in the export', async () => {
    const record = {
      profileId: 'prof-csv-1', action: 'accept', validUntil: Date.parse('2030-01-01T00:00:00Z'), source: 'banner',
      page: "https://shop.example/?q=x;=cmd|' /C calc'!A0", version: 'v1,=1+1', email: '-2+3;@SUM(1)@example.com',
    };
    const sent = await h.app.inject({ method: 'POST', url: '/v1/acme/projects/shop/consents/data', headers: { authorization: basic('web1.p4ss') }, payload: record });
    assert.ok(sent.statusCode < 300, sent.body);
    const csv = await h.app.inject({ method: 'GET', url: '/v1/acme/projects/shop/privacy/consents?format=csv', headers: { authorization: 'Bearer adm1.s3cret' } });
    assert.equal(csv.statusCode, 200, csv.body);
    assert.ok(csv.body.includes('calc'), csv.body);
    assert.deepEqual(formulas(csv.body), [], csv.body);
  });
});
