// Every regular expression the service applies to what a request brings (headers, the URL, body strings, and stored
// values that came from them) runs in time linear in its input. A quadratic one over a 16 KiB User-Agent took 300 ms
// a request: a handful of requests a second stopped a node. Three checks, over one table:
// - each expression over hostile input (long runs of what its quantifiers accept, then a failing end) at the length
//   the service lets through takes well under 100 ms (a quadratic one takes seconds there);
// - a ReDoS analyzer (recheck) judges each one safe: the deterministic check, which does not depend on the machine;
// - every expression in server/ is either in the table or in the list of those that never see request input, with
//   the reason: a new one cannot be added without being judged.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { check } from 'recheck';
import ts from 'typescript';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { paddedVersionString } from '../../../server/config/version-string.js';
import { BODY_LIMIT } from '../../../server/http/body-parsers.js';
import { MAX_USER_AGENT } from '../../../server/http/browser-family.js';
import type { ResultsAnswer } from '../../../wire/results-answer.js';
import { SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const ROOT = join(import.meta.dirname, '../../..');

/** Node's limit on a request's headers (--max-http-header-size, not raised by the service): the request line too. */
const HEADER = 16 * 1024;
/**
 * Body strings: the body may reach BODY_LIMIT (1 MiB), but 64 KiB already tells the two kinds apart by a factor of
 * thousands (a linear expression takes well under a millisecond, a quadratic one seconds), at a cost the suite affords
 * for every expression and every run of characters below.
 */
const BODY = Math.min(64 * 1024, BODY_LIMIT);

interface Row {
  /** Where the expression is written (the scan below finds it there, so the copy here cannot drift from it). */
  file: string;
  regex: RegExp;
  /** What it is applied to. */
  input: string;
  /** The longest such input the service lets through. */
  length: number;
  /** What gets the match to the expression's quantifiers (a run is tried after each, and after nothing). */
  prefixes?: string[];
}

const REGEXES: Row[] = [
  { file: 'server/http/browser-family.ts', regex: /bot|crawl|spider|slurp|headless/i, input: 'User-Agent', length: HEADER },
  { file: 'server/http/browser-family.ts', regex: /Edg(?:e|A|iOS)?\//, input: 'User-Agent', length: HEADER, prefixes: ['Edg'] },
  { file: 'server/http/browser-family.ts', regex: /OPR\/|Opera/, input: 'User-Agent', length: HEADER },
  { file: 'server/http/browser-family.ts', regex: /SamsungBrowser\//, input: 'User-Agent', length: HEADER },
  { file: 'server/http/browser-family.ts', regex: /Firefox\/|FxiOS\//, input: 'User-Agent', length: HEADER },
  { file: 'server/http/browser-family.ts', regex: /Chrome\/|CriOS\/|Chromium\//, input: 'User-Agent', length: HEADER },
  { file: 'server/http/browser-family.ts', regex: /Version\/\d/, input: 'User-Agent', length: HEADER, prefixes: ['Version/'] },
  { file: 'server/http/browser-family.ts', regex: /Safari\//, input: 'User-Agent', length: HEADER },
  { file: 'server/auth/read-credentials.ts', regex: /^Bearer\s+(\S+)\s*$/i, input: 'Authorization header', length: HEADER, prefixes: ['Bearer ', 'Bearer x'] },
  { file: 'server/auth/read-credentials.ts', regex: /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i, input: 'Authorization header', length: HEADER, prefixes: ['Basic ', 'Basic x'] },
  { file: 'server/auth/sessions.ts', regex: /^[A-Za-z0-9_-]{43}$/, input: 'session cookie', length: HEADER },
  { file: 'server/sessions/invitations.ts', regex: /^[A-Za-z0-9_-]{43}$/, input: 'invitation token (body)', length: BODY },
  { file: 'server/http/if-match.ts', regex: /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/, input: 'If-Match header', length: HEADER, prefixes: ['W/"', '"1'] },
  { file: 'server/management/management-routes.ts', regex: /^[1-9]\d{0,8}$/, input: 'feed name (path)', length: HEADER },
  { file: 'server/results/results-query.ts', regex: /^[1-9]\d{0,8}$/, input: 'phase (query)', length: HEADER },
  { file: 'server/planning/plan-query.ts', regex: /^(?:\d{1,12}(?:\.\d{0,20})?|\.\d{1,20})(?:e-?\d{1,3})?$/i, input: 'mde (query)', length: HEADER, prefixes: ['1', '1.', '.1', '1e-'] },
  { file: 'server/planning/plan-query.ts', regex: /^[1-9]\d{0,3}$/, input: 'days (query)', length: HEADER },
  { file: 'server/recommendations/feed-service.ts', regex: /^[1-9][0-9]{0,9}$/, input: 'feed id (the feed and report paths)', length: HEADER },
  { file: 'server/recommendations/feed-report-program.ts', regex: /^[A-Za-z]{3}$/, input: 'currency (stored event data, catalog body)', length: BODY },
  { file: 'server/http/log-redaction.ts', regex: /([?&])([^=&#?]*)=([^&#]*)/g, input: 'request URL, in the log line', length: HEADER, prefixes: ['?a=', '&'] },
  { file: 'server/http/log-redaction.ts', regex: /\+/g, input: 'query parameter name, in the log line', length: HEADER },
  { file: 'server/http/cors.ts', regex: /^\/v1\/([^/?#]+)\/projects\/([^/?#]+)\//, input: 'request path', length: HEADER, prefixes: ['/v1/', '/v1/a/projects/'] },
  { file: 'server/http/static-routes.ts', regex: /\.mjs(\.map)?$/, input: 'request path', length: HEADER, prefixes: ['.mjs'] },
  { file: 'server/http/static-routes.ts', regex: /^[0-9A-Za-z.+-]+$/, input: 'SDK version (path)', length: HEADER },
  { file: 'server/http/static-routes.ts', regex: /^\/(?:[\w-]+\.(?:html|css|svg))?$/, input: 'request path', length: HEADER, prefixes: ['/', '/a.'] },
  { file: 'server/http/connection-limits.ts', regex: /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, input: 'client address (X-Forwarded-For behind a proxy)', length: HEADER, prefixes: ['::ffff:', '::ffff:1.1.1.'] },
  { file: 'server/http/connection-limits.ts', regex: /^0+(?=.)/, input: 'client address group (X-Forwarded-For)', length: HEADER },
  { file: 'server/http/iso-time.ts', regex: /^(\d{4})-(\d{2})-(\d{2})(T(\d{2}):(\d{2})(:(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/, input: 'timestamps (body, query)', length: BODY, prefixes: ['2026-01-01T00:00:00.'] },
  { file: 'server/ingest/validate-event.ts', regex: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, input: 'eventId (body)', length: BODY },
  { file: 'server/results/unit-dimensions.ts', regex: /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i, input: 'profileId (stored from a body)', length: BODY },
  { file: 'server/results/exposure-pairs.ts', regex: /\["((?:[^"\\]|\\.)*)","/g, input: 'stored exposure JSON (names from a body)', length: BODY, prefixes: ['["', '["\\'] },
  { file: 'server/consent/validate-consent.ts', regex: /^[a-z][a-z0-9_-]{0,31}$/, input: 'consent source (body)', length: BODY },
  { file: 'server/errors/echo-input.ts', regex: /^[A-Za-z_$][\w$-]*$/, input: 'field names echoed in errors (body)', length: BODY },
  { file: 'server/sessions/person-input.ts', regex: /^[^\s@]{1,64}@[^\s@][^\s@.]*\.[^\s@]+$/, input: 'email (body)', length: BODY, prefixes: ['a@', 'a@b.', 'a@.'] },
  { file: 'server/sessions/oidc-routes.ts', regex: /^[A-Za-z0-9_-]{1,64}$/, input: 'organization and project names (query)', length: HEADER },
  { file: 'server/privacy/privacy-routes.ts', regex: /^[^\s@]+@[^\s@]+$/, input: 'email (body)', length: BODY, prefixes: ['a@'] },
  { file: 'server/privacy/privacy-routes.ts', regex: /^\d+$/, input: 'time (query)', length: HEADER },
  { file: 'server/privacy/privacy-routes.ts', regex: /^([a-zA-Z]+)\.csv$/, input: 'export table (path)', length: HEADER, prefixes: ['a.csv'] },
  { file: 'wire/csv-cell.ts', regex: /([,;\r\n])/, input: 'exported values (stored from bodies)', length: BODY },
  { file: 'wire/csv-cell.ts', regex: /^(?:[^\S\t\r\n]|")*[=+\-@\t]/, input: 'exported values (stored from bodies)', length: BODY },
  { file: 'wire/csv-cell.ts', regex: /[",;\r\n]/, input: 'exported values (stored from bodies)', length: BODY },
  { file: 'wire/csv-cell.ts', regex: /^[\r\n]/, input: 'exported values (stored from bodies)', length: BODY },
  { file: 'server/config/version-string.ts', regex: /^[0-9]+$/, input: 'targeting attribute compared as a version (body)', length: BODY },
  { file: 'server/config/version-string.ts', regex: /[-.]/, input: 'targeting attribute compared as a version (body)', length: BODY },
  // Configuration arrives in requests too: the management API validates items with these.
  { file: 'server/config/validate-config.ts', regex: /^[A-Za-z0-9_-]{1,64}$/, input: 'names (management API body)', length: BODY },
  { file: 'server/config/validate-config.ts', regex: /^[^.:\s]{1,64}\.\S{1,256}$/, input: 'keys (management API body)', length: BODY, prefixes: ['a.'] },
  { file: 'server/config/validate-config.ts', regex: /^https?:\/\/[^/\s]+$/, input: 'CORS origins (management API body)', length: BODY, prefixes: ['https://'] },
  { file: 'server/config/validate-config.ts', regex: /\/admin\/oidc\/callback$/, input: 'OIDC redirect URI (configuration)', length: BODY, prefixes: ['/admin/oidc/'] },
  { file: 'server/webhooks/endpoint-input.ts', regex: /^\./, input: 'a webhook body\'s unknown field name, as its path', length: BODY },
  { file: 'server/webhooks/webhook-routes.ts', regex: /^[1-9]\d{0,15}$/, input: 'delivery id (path) and `before` (query)', length: HEADER },
  { file: 'server/webhooks/address-guard.ts', regex: /^\[(.*)\]$/, input: 'a webhook URL\'s host (management API body)', length: BODY, prefixes: ['[', '[::1]'] },
  { file: 'server/webhooks/address-guard.ts', regex: /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, input: 'an address a webhook URL\'s host resolves to', length: BODY, prefixes: ['::ffff:', '::ffff:1.1.1.'] },
  { file: 'server/config/validate-recommendations.ts', regex: /^[A-Z]{3}$/, input: 'the holdout\'s currency (configuration; a management write validates the whole project)', length: BODY },
];

/** Expressions in server/ that never see request input, each with why. */
const NOT_REQUEST_INPUT: { file: string; regex: RegExp | 'new RegExp'; why: string }[] = [
  { file: 'server/config/condition.ts', regex: 'new RegExp', why: "a targeting condition's $regex from the project's configuration (an admin's pattern, see below)" },
  { file: 'server/config/load-config.ts', regex: /position (\d+)/, why: "JSON.parse's error message about the configuration file" },
  { file: 'server/create-admin.ts', regex: /\/+$/, why: 'the CLI operator\'s --url' },
  { file: 'server/http/connection-limits.ts', regex: /^\d+$/, why: 'an environment variable' },
  { file: 'server/http/openapi-document.ts', regex: /:([A-Za-z]+)/g, why: "the service's own route paths" },
  { file: 'server/http/openapi-document.ts', regex: /[/-]/, why: "the service's own route paths" },
  { file: 'server/http/openapi-document.ts', regex: /[^A-Za-z0-9]/g, why: "the service's own route paths" },
  { file: 'server/http/static-routes.ts', regex: /\.(br|gz)$/, why: 'the path of a file @fastify/static found in dist/ (a request for another path is a 404 before it)' },
  { file: 'server/webhooks/webhook-options.ts', regex: /\/+$/, why: 'PUBLIC_URL from the environment (or a test\'s option)' },
  { file: 'server/http/connection-limits.ts', regex: /^\d{1,2}$/, why: 'TRUST_PROXY from the environment' },
  { file: 'server/main.ts', regex: /^\d{1,5}$/, why: 'PORT from the environment' },
  { file: 'server/main.ts', regex: /^E[A-Z]+$/, why: "a Node system error's code" },
  { file: 'server/privacy/person-rows.ts', regex: /_([a-z])/g, why: "the service's own column names" },
  { file: 'server/storage/open-storage.ts', regex: /^postgres(ql)?:\/\//, why: 'DATABASE_URL from the environment' },
  { file: 'server/storage/postgres/postgres-storage.ts', regex: /\?/g, why: "the service's own SQL text" },
  { file: 'server/storage/postgres/postgres-storage.ts', regex: /^[A-Za-z_][A-Za-z0-9_]{0,62}$/, why: "the service's own identifiers" },
  { file: 'server/storage/unavailable.ts', regex: /^(08|53)|^57P0[1-3]$/, why: "a database driver's error code" },
  { file: 'server/storage/unavailable.ts', regex: /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY)/, why: "a database driver's error code" },
  { file: 'server/storage/unavailable.ts', regex: /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/, why: "a database driver's error message" },
];

/** Runs tried after each prefix: what the expressions' quantifiers take (letters, digits, dots, separators, spaces,
 * quotes, escapes), and the tokens of the browser families, repeated. */
const RUNS = [' ', '\t', 'a', 'A', '0', '1', '1.', '.', '-', '_', '?', '&', '=', '"', '\\"', '\\', '@', '/', ':', '+', ';', ',', 'v', '\u00a0', 'Version/1', 'Safari', 'bot'];
/** What ends every hostile input: a line break (which `.` does not take), a character no class here accepts, a quote. */
const FAILING_END = '\n\u0000"!';
const BOUND_MS = 100;

const key = (file: string, regex: RegExp | 'new RegExp'): string => `${file} ${String(regex)}`;

/** The least time of up to three runs: a linear expression has at least one run the machine's other work leaves
 * alone, a quadratic one is slow every time. */
function leastMs(regex: RegExp, input: string): number {
  let least = Infinity;
  for (let run = 0; run < 3 && least >= BOUND_MS; run++) {
    regex.lastIndex = 0;
    const start = performance.now();
    if (regex.global) input.replace(regex, '');
    else regex.test(input);
    least = Math.min(least, performance.now() - start);
  }
  return least;
}

/** Every regular expression literal and RegExp construction in server/, as `file /source/flags`. */
function regexesInServer(): Set<string> {
  const found = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.[cm]?[jt]s$/.test(entry.name)) {
        const file = relative(ROOT, path);
        const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
        const visit = (node: ts.Node): void => {
          if (ts.isRegularExpressionLiteral(node)) found.add(`${file} ${node.text}`);
          if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(node.expression) && node.expression.text === 'RegExp') {
            found.add(key(file, 'new RegExp'));
          }
          ts.forEachChild(node, visit);
        };
        visit(source);
      }
    }
  };
  // And the shapes the server shares with the browser, which it runs on request input too.
  walk(join(ROOT, 'server'));
  walk(join(ROOT, 'wire'));
  return found;
}

describe('regular expressions over request input', () => {
  it('are every one in server/: each is in the table or said not to see request input', () => {
    const listed = new Set([...REGEXES.map((r) => key(r.file, r.regex)), ...NOT_REQUEST_INPUT.map((r) => key(r.file, r.regex))]);
    const found = regexesInServer();
    assert.deepEqual([...found].filter((k) => !listed.has(k)), [], 'expressions in server/ that neither list names');
    assert.deepEqual([...listed].filter((k) => !found.has(k)), [], 'listed expressions no longer in server/');
  });

  for (const row of REGEXES) {
    it(`${String(row.regex)} over a hostile ${row.input} of ${row.length} characters takes under ${BOUND_MS} ms (${row.file})`, () => {
      const slow: string[] = [];
      for (const prefix of ['', ...(row.prefixes ?? [])]) {
        for (const run of RUNS) {
          const input = prefix + run.repeat(Math.ceil((row.length - prefix.length - FAILING_END.length) / run.length)) + FAILING_END;
          const ms = leastMs(row.regex, input.slice(0, row.length));
          if (ms >= BOUND_MS) slow.push(`${JSON.stringify(prefix)} + ${JSON.stringify(run)}…: ${ms.toFixed(0)} ms`);
        }
      }
      assert.deepEqual(slow, []);
    });
  }

  it('are each judged safe (linear) by the recheck ReDoS analyzer', { timeout: 600_000 }, async () => {
    const unsafe: string[] = [];
    for (const { regex } of REGEXES) {
      // A fixed seed: its fuzzing checker gives the same verdict on every run.
      const verdict = await check(regex.source, regex.flags, { randomSeed: 46, timeout: 60_000 });
      if (verdict.status !== 'safe') unsafe.push(`${String(regex)}: ${verdict.status}${verdict.status === 'vulnerable' ? ` (${verdict.complexity.type}, attack ${JSON.stringify(verdict.attack.pattern)})` : ''}`);
    }
    assert.deepEqual(unsafe, []);
  });
});

describe('version strings without the quadratic expression', () => {
  it("read as GrowthBook's /(^v|\\+.*$)/g made them, on short text where that expression is quick (property)", () => {
    const growthBook = (text: string): string => text.replace(/(^v|\+.*$)/g, '');
    const text = fc.string({ unit: fc.constantFrom('v', '+', '1', '.', '-', 'a', '\n', '\r', '\u2028', ' '), maxLength: 16 });
    fc.assert(fc.property(text, (t) => {
      const input = t === '' ? '0' : t;
      // The rest of paddedVersionString, as it stands, around the old expression.
      const parts = growthBook(input).split(/[-.]/);
      if (parts.length === 3) parts.push('~');
      const expected = parts.map((p) => (/^[0-9]+$/.test(p) ? p.padStart(5, ' ') : p)).join('-');
      assert.equal(paddedVersionString(input), expected, JSON.stringify(input));
    }), { seed: 46, numRuns: 3000 });
  });
});

describe('a Choose request with a long User-Agent', () => {
  const h = useApp(SQLITE_DRIVER, (): { config: ServiceConfigFile } => {
    const config = testConfig();
    const shop = config.organizations.acme!.projects.shop!;
    shop.experiences = [{ name: 'split', variations: [{ name: 'control', weight: 50, body: {} }, { name: 'bold', weight: 50, body: {} }] }];
    shop.limits = { writeKeyPerSecond: 1_000_000 };
    return { config };
  });

  async function choose(app: FastifyInstance, profileId: string, userAgent: string): Promise<void> {
    const res = await app.inject({
      method: 'POST', url: '/v1/acme/projects/shop/optimization/choose-api', headers: { authorization: basic('web1.p4ss'), 'user-agent': userAgent },
      payload: { identification: { sourceId: 'web', profileId }, names: ['split'] },
    });
    assert.equal(res.statusCode, 200, res.body);
  }

  it('of 16 KiB and more is answered, and its browser family counted from the first characters', async () => {
    const safari = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
    await choose(h.app, 'prof-long-ua-1', `${safari} ${'x'.repeat(HEADER)}`);
    // The slow case of the old expression: Version/ and a long run of what it took, with no Safari/ after it.
    await choose(h.app, 'prof-long-ua-2', `Version/${'1'.repeat(HEADER)}`);
    // Safari's token beyond what is read: not counted as Safari.
    await choose(h.app, 'prof-long-ua-3', `Version/1 ${' '.repeat(MAX_USER_AGENT)}Safari/604.1`);
    const res = await h.app.inject({ method: 'GET', url: '/v1/acme/projects/shop/experiences/split/results?apiKey=srv1.s3cret&dimension=browser' });
    assert.equal(res.statusCode, 200, res.body);
    const units = Object.fromEntries((res.json() as ResultsAnswer).dimensions!.map((d) => [d.value, d.units]));
    assert.deepEqual(units, { Safari: 1, Other: 2 });
  });
});
