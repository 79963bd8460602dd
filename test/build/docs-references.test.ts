// Docs that check themselves: every file path and every HTTP route that README.md and docs/*.md name exists. Paths are
// the backticked ones (`server/app.ts`, `bench/`, a bare `phase-step.ts` or a folder-relative `storage/program.ts`) and
// the targets of links and images; routes are `GET /v1/…` mentions (`…/results` for "some route ending so") and the
// `curl` commands of code blocks, matched against the routes the service registers (its app built on SQLite).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app.js';
import type { Storage } from '../../server/storage/storage.js';
import { sqliteDatabase, type TestDatabase } from '../server/helpers/storage-drivers.js';
import { testConfig } from '../server/helpers/test-config.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
/**
 * What the build writes (in dist/, and `chunks/…` of it), and other projects' files the docs compare with: not files of
 * this repository.
 */
const NOT_OURS = new Set(['service.js', 'service-core.js', 'manifest.json', 'index.min.js', 'auto.min.js', 'standalone.js']);
const SKIPPED = new Set(['node_modules', 'dist', '.git', 'coverage']);

/** Every file and folder of the repository (folders end with `/`), relative to its root. */
function repositoryPaths(dir = ''): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    return entry.isDirectory() ? [`${path}/`, ...repositoryPaths(path)] : [path];
  });
}

/** A path as a pattern: `<name>` and `{name}` stand for one segment, `*` for part of one. */
function pathPattern(path: string): string {
  return path.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/<[^>/]+>|\{[^}/]+\}/g, '[^/]+').replace(/\*/g, '[^/]*');
}

/** A registered route: one method and its path as Fastify has it (`/v1/:org/me`, `*`). */
interface Route { method: string; path: string }

/**
 * The routes `app` registers, read off its route tree (`printRoutes`): each line is a path fragment, indented under the
 * fragment it continues, with its methods in parentheses.
 */
function registeredRoutes(app: FastifyInstance): Route[] {
  const stack: string[] = [];
  return app.printRoutes({ commonPrefix: false }).split('\n').flatMap((line) => {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) return [];
    const depth = m[1]!.length / 4;
    stack[depth] = (stack[depth - 1] ?? '') + m[2]!;
    stack.length = depth + 1;
    return (m[3] ?? '').split(',').map((method) => method.trim()).filter(Boolean).map((method) => ({ method, path: stack[depth]! }));
  });
}

/** The static files' mounts (server/http/static-routes.ts): the catch-all route answers these paths, and only these. */
const STATIC = /^\/(?:$|admin\/|svc\/)/;

/**
 * Whether a route of `method` answers `mention`: a path (`/v1/{org}/me`, `/v1/acme/keys/k3f9…`) or, after an ellipsis,
 * the end of one (`…/results`). `{name}` and `<name>` must be a parameter of the route; any other segment is the
 * route's literal or a value of its parameter. A query (`?apiKey=…`, `[?project=…]`) is not part of the path.
 */
function routeExists(routes: Route[], method: string, mention: string): boolean {
  const suffix = /^(…|\.\.\.)/.test(mention);
  const path = mention.replace(/^(…|\.\.\.)/, '').replace(/\[.*$|\?.*$/, '').replace(/[.:]$/, '');
  const wanted = path.split('/').slice(1);
  return routes.some((route) => {
    if (route.method !== method) return false;
    if (route.path === '*') return !suffix && STATIC.test(path);
    const have = route.path.split('/').slice(1);
    if (suffix ? have.length < wanted.length : have.length !== wanted.length) return false;
    return wanted.every((segment, i) => {
      const theirs = have[have.length - wanted.length + i]!;
      if (theirs.startsWith(':')) return segment !== '';
      return /^[<{]/.test(segment) ? false : segment === theirs;
    });
  });
}

/** A line of a doc, where it is, and whether it is inside a fenced code block. */
interface Line { doc: string; number: number; text: string; code: boolean }

function lines(doc: string): Line[] {
  let code = false;
  return readFileSync(join(ROOT, doc), 'utf8').split('\n').map((text, i) => {
    if (/^\s*```/.test(text)) code = !code;
    return { doc, number: i + 1, text, code };
  });
}

const ALL = DOCS.flatMap(lines);
const where = (line: Line): string => `${line.doc}:${line.number}`;

/** The backticked tokens of prose that name a file (by its extension) or a folder (a trailing `/`). */
function pathTokens(line: Line): string[] {
  if (line.code) return [];
  return [...line.text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!.replace(/^\.\//, '').replace(/[#:].*$/, ''))
    .filter((t) => /^[\w<>{}*][\w.\-/<>{}*]*$/.test(t) && !/^(dist|chunks)\//.test(t) && !NOT_OURS.has(t))
    .filter((t) => /\.(ts|mts|mjs|js|json|md|png|svg|html|css)$/.test(t) || t.endsWith('/'));
}

/** Link and image targets inside the repository, as repository paths. */
function linkTargets(line: Line): string[] {
  if (line.code) return [];
  return [...line.text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!.replace(/#.*$/, ''))
    .filter((t) => t !== '' && !/^[a-z]+:/i.test(t))
    .map((t) => relative(ROOT, resolve(ROOT, dirname(line.doc), t)));
}

describe('the files README.md and docs/*.md name', () => {
  const paths = repositoryPaths();
  const top = new Set(paths.filter((p) => !p.slice(0, -1).includes('/')).map((p) => p.replace(/\/$/, '')));

  it('exist: each backticked path from the root or, bare or folder-relative, somewhere in the repository', () => {
    const missing = ALL.flatMap((line) => pathTokens(line).flatMap((token) => {
      const pattern = new RegExp(top.has(token.split('/')[0]!) ? `^${pathPattern(token)}$` : `(^|/)${pathPattern(token)}$`);
      return paths.some((p) => pattern.test(p)) ? [] : [`${where(line)}: ${token}`];
    }));
    assert.deepEqual(missing, []);
  });

  it('exist: each link and image target', () => {
    const missing = ALL.flatMap((line) => linkTargets(line).flatMap((target) => {
      const found = paths.includes(target) || paths.includes(`${target}/`);
      return found ? [] : [`${where(line)}: ${target}`];
    }));
    assert.deepEqual(missing, []);
  });
});

describe('the routes README.md and docs/*.md name', () => {
  let db: TestDatabase;
  let storage: Storage;
  let app: FastifyInstance;
  let routes: Route[];

  before(async () => {
    db = sqliteDatabase();
    storage = await db.open();
    app = await buildApp({ config: testConfig(), storage, staticRoot: ROOT });
    await app.ready();
    routes = registeredRoutes(app);
  });
  after(async () => {
    await app?.close();
    await storage?.close();
    await db?.destroy();
  });

  it('reads the routes the service registers', () => {
    assert.ok(routes.length > 30, `${routes.length} routes`);
    assert.ok(routes.some((r) => r.method === 'POST' && r.path === '/v1/:org/projects/:project/sources/:sourceId/track'));
  });

  it('are registered: each `METHOD /path` mention, with its method', () => {
    const methods = 'GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS';
    const mention = new RegExp(`\\b((?:${methods})(?:/(?:${methods}))*) +((?:…|\\.\\.\\.)?/[^\\s\`|),;'"]*)`, 'g');
    let seen = 0;
    const missing = ALL.flatMap((line) => [...line.text.matchAll(mention)].flatMap(([, list, path]) => list!.split('/').flatMap((method) => {
      seen++;
      return routeExists(routes, method, path!) ? [] : [`${where(line)}: ${method} ${path}`];
    })));
    assert.ok(seen > 40, `${seen} mentions`);
    assert.deepEqual(missing, []);
  });

  it('are registered: each curl command of a code block, with the method it sends', () => {
    let seen = 0;
    const missing: string[] = [];
    for (const doc of DOCS) {
      const variables = new Map<string, string>();
      const docLines = ALL.filter((line) => line.doc === doc && line.code);
      for (let i = 0; i < docLines.length; i++) {
        const first = docLines[i]!;
        let command = first.text;
        while (command.trimEnd().endsWith('\\') && docLines[i + 1]) command = `${command.trimEnd().slice(0, -1)} ${docLines[++i]!.text}`;
        const assigned = /^\s*([A-Z_]+)=['"]?(\S+?)['"]?\s*$/.exec(command);
        if (assigned) variables.set(assigned[1]!, assigned[2]!);
        if (!/^\s*curl\b/.test(command)) continue;
        const expanded = command.replace(/\$\{?([A-Z_]+)\}?/g, (whole, name: string) => variables.get(name) ?? whole);
        const url = /https?:\/\/[^/\s'"]+(\/[^\s'"]*)/.exec(expanded)?.[1];
        assert.ok(url, `${where(first)}: a curl command without a URL`);
        const method = /(?:-X|--request)\s+([A-Z]+)/.exec(expanded)?.[1]
          ?? (/\s(?:-d|--data(?:-binary|-raw)?|--json|-F)\s/.test(expanded) ? 'POST' : 'GET');
        seen++;
        if (!routeExists(routes, method, url)) missing.push(`${where(first)}: curl ${method} ${url}`);
      }
    }
    assert.ok(seen > 15, `${seen} curl commands`);
    assert.deepEqual(missing, []);
  });
});
