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

/** The server's layers, top first: a file may import its own layer's files and those of the layers below it. */
const LAYERS = ['entry', 'domains', 'platform', 'ground'] as const;
type Layer = (typeof LAYERS)[number];
const PLATFORM = ['http', 'auth', 'errors', 'metrics', 'memory', 'jobs'];
const GROUND = ['storage', 'config'];

/** A server file's room: its folder below server/, or the file itself when it stands in server/. */
function roomOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1]! : file;
}

function layerOf(file: string): Layer {
  const room = roomOf(file);
  if (room.endsWith('.ts')) return 'entry';
  if (GROUND.includes(room)) return 'ground';
  if (PLATFORM.includes(room)) return 'platform';
  return 'domains';
}

/** A domain's schema, which is the one place SQL is written per database. */
const MIGRATION_FILE = /-migrations\.ts$/;

/** The circles of a graph (strongly connected components of more than one node), each as its sorted nodes. */
function circles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** Each table a domain's migrations create, with that domain (its folder below server/): the table's one owner. */
function tableOwners(): Map<string, string[]> {
  const owners = new Map<string, string[]>();
  for (const file of sources('server').filter((f) => MIGRATION_FILE.test(f))) {
    for (const [, table] of readFileSync(join(ROOT, file), 'utf8').matchAll(/\bCREATE\s+(?:UNLOGGED\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_]\w*)/g)) {
      const rooms = owners.get(table!) ?? [];
      if (!rooms.includes(roomOf(file))) rooms.push(roomOf(file));
      owners.set(table!, rooms);
    }
  }
  return owners;
}

/**
 * Every statement that writes a table, by the table it names (or `${…}` when the name is put in at run time): INSERT
 * (OR …) INTO, REPLACE INTO, UPDATE … SET, DELETE FROM, TRUNCATE. The service's SQL is written in capitals; a locking
 * `FOR UPDATE` or an upsert's `DO UPDATE SET` names no table and is not one.
 */
const WRITE = /\b(?:(?:INSERT(?:\s+OR\s+[A-Z]+)?|REPLACE)\s+INTO|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)\s+(\$\{[^}]*\}|[A-Za-z_]\w*)|\bUPDATE\s+(\$\{[^}]*\}|[A-Za-z_]\w*)\s+SET\b/g;

/** The tables `file` writes, one entry a statement; comment lines (an `@example`) are not statements. */
function writesOf(file: string): { file: string; table: string }[] {
  const code = readFileSync(join(ROOT, file), 'utf8').split('\n').filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line)).join('\n');
  return [...code.matchAll(WRITE)].map((m) => ({ file, table: (m[1] ?? m[2])!.startsWith('${') ? '${…}' : (m[1] ?? m[2])! }));
}

/**
 * The files that may write tables other domains own, each with the tables (`any`: whichever it is given) and why. A
 * line here is a decision, not a convenience: the test fails on a listed write that is no longer there too.
 */
const WRITES_ACROSS: readonly { file: string; tables: readonly string[] | 'any'; reason: string }[] = [
  {
    file: 'server/storage/copy/postgres-target.ts', tables: 'any',
    reason: 'copying a SQLite database into PostgreSQL writes every table as rows, knowing no domain',
  },
  {
    file: 'server/privacy/person-rows.ts', tables: 'any',
    reason: 'where a person\'s rows are, table by table (PERSON_TABLES), is one description that the export reads and the '
      + 'erasure deletes by, so an export returns exactly what an erasure removes; ingest and consent import privacy, so '
      + 'their own programs could not be called from here',
  },
  {
    file: 'server/privacy/privacy-runner.ts', tables: ['events', 'exposures'],
    reason: 'an erasure walks the two tables with no index by person in chunks, each chunk\'s rows deleted in the '
      + 'transaction that moves the request\'s cursor (resumable on any node, never done twice)',
  },
  {
    file: 'server/privacy/retention.ts', tables: ['events', 'exposures', 'recommendations'],
    reason: 'the retention sweep deletes what a project\'s `retention` no longer keeps in the tables that grow with traffic, '
      + 'in batches it paces itself; the policy and its pacing are privacy\'s',
  },
  {
    file: 'server/recommendations/recommendation-migrations.ts', tables: ['events'],
    reason: 'a shipped migration (never edited) added `recommendation_id` to the stored events and filled it; ingestion '
      + 'writes it since',
  },
];

describe('import boundaries', () => {
  it('reads imports: the rules below see something to check', () => {
    assert.ok(importsOf('bundles/chunks/auto-track.ts').includes('plugins/auto-track/index.ts'));
  });

  it('plugins use the core only through src/index.ts and src/plugin-api.ts', () => {
    assert.deepEqual(violations('plugins', (t) => !inside(t, 'src') || t === 'src/index.ts' || t === 'src/plugin-api.ts'), []);
  });

  it('the core (src/) imports no plugin, bundle entry or service code', () => {
    assert.deepEqual(violations('src', (t) => !['plugins', 'bundles', 'server'].some((f) => inside(t, f))), []);
  });

  it('the service shares only the wire shapes (wire/) with the browser code: no file of src/, plugins/ or bundles/', () => {
    assert.deepEqual(violations('server', (t) => !['src', 'plugins', 'bundles', 'admin'].some((f) => inside(t, f))), []);
  });

  it('the wire shapes import nothing but each other', () => {
    assert.deepEqual(violations('wire', (t) => inside(t, 'wire')), []);
  });

  it('the server\'s layers: entry → domains → platform → storage and config, nothing below imports what is above', () => {
    const bad = sources('server').flatMap((file) => importsOf(file)
      .filter((target) => inside(target, 'server') && LAYERS.indexOf(layerOf(target)) < LAYERS.indexOf(layerOf(file)))
      .map((target) => `${file} (${layerOf(file)}) → ${target} (${layerOf(target)})`));
    assert.deepEqual(bad, []);
  });

  it('storage and config import only their own files (and config the wire shapes)', () => {
    assert.deepEqual(violations('server/storage', (t) => inside(t, 'server/storage')), []);
    assert.deepEqual(violations('server/config', (t) => inside(t, 'server/config') || inside(t, 'wire')), []);
  });

  it('no circle in server/: between its folders, and between its files', () => {
    const rooms = new Map<string, Set<string>>();
    const files = new Map<string, Set<string>>();
    for (const file of sources('server')) {
      const targets = importsOf(file).filter((t) => inside(t, 'server'));
      files.set(file, new Set(targets));
      const from = roomOf(file);
      if (!rooms.has(from)) rooms.set(from, new Set());
      for (const t of targets) if (roomOf(t) !== from) rooms.get(from)!.add(roomOf(t));
    }
    assert.deepEqual(circles(rooms), []);
    assert.deepEqual(circles(files), []);
  });

  it('the Choose engine imports only its own files, the config\'s types and conditions, and the wire shapes', () => {
    const allowed = ['server/config/config-types.ts', 'server/config/condition.ts', 'server/config/version-string.ts'];
    assert.deepEqual(violations('server/choose/engine', (t) => inside(t, 'server/choose/engine') || allowed.includes(t) || inside(t, 'wire')), []);
  });

  it('no domain\'s code names a thread, a database or a fallback: where and how programs run is the storage\'s', () => {
    // Code lines only: a comment may say why a portable statement is shaped as it is for one database.
    const named = /thread|dialect|sqlite|postgres|fallback/i;
    const comment = /^\s*(\/\/|\/\*|\*)/;
    const bad = sources('server').filter((file) => layerOf(file) === 'domains' && !MIGRATION_FILE.test(file))
      .flatMap((file) => readFileSync(join(ROOT, file), 'utf8').split('\n')
        .map((line, i) => ({ line, i }))
        .filter(({ line }) => !comment.test(line) && named.test(line))
        .map(({ line, i }) => `${file}:${i + 1}: ${line.trim()}`));
    assert.deepEqual(bad, []);
  });

  it('the Choose engine keeps no state of its own: no module-level variable, map or set', () => {
    const state = /^(?:export\s+)?(?:let|var)\s|^(?:export\s+)?const\s+\w+\s*(?::[^=]+)?=\s*new\s+(?:Weak)?(?:Map|Set)\b/m;
    assert.deepEqual(sources('server/choose/engine').filter((file) => state.test(readFileSync(join(ROOT, file), 'utf8'))), []);
  });

  it('the admin console talks to the service over HTTP only: its own files and the wire shapes', () => {
    assert.deepEqual(violations('admin', (t) => inside(t, 'admin') || inside(t, 'wire')), []);
  });

  it('each table has one owning domain, the one whose migrations create it, and only its folder writes it', () => {
    const owners = tableOwners();
    assert.deepEqual([owners.get('sessions'), owners.get('people'), owners.get('events')], [['sessions'], ['management'], ['ingest']], 'tables found');
    assert.deepEqual([...owners].filter(([, rooms]) => rooms.length > 1).map(([table, rooms]) => `${table}: ${rooms.join(', ')}`), [], 'one owner each');
    const allowed = (file: string, table: string): boolean => WRITES_ACROSS.some((w) => w.file === file && (w.tables === 'any' || w.tables.includes(table)));
    const writes = sources('server').flatMap(writesOf);
    assert.ok(writes.some((w) => w.table === 'sessions'), 'writes found');
    const bad = writes.filter(({ file, table }) => (table === '${…}' || owners.has(table)) && roomOf(file) !== owners.get(table)?.[0] && !allowed(file, table));
    assert.deepEqual(bad.map(({ file, table }) => `${file} writes ${table}${owners.has(table) ? ` (${owners.get(table)![0]}'s)` : ''}`), []);
    const stale = WRITES_ACROSS.flatMap((w) => (w.tables === 'any' ? ['any'] : w.tables)
      .filter((table) => !writesOf(w.file).some((found) => table === 'any' ? roomOf(w.file) !== owners.get(found.table)?.[0] : found.table === table))
      .map((table) => `${w.file}: ${table}`));
    assert.deepEqual(stale, [], 'listed writes across domains that are no longer there');
  });

  it('plugins import no bundle entry and no other plugin', () => {
    const own = (file: string, target: string) => target.split('/')[1] === file.split('/')[1];
    const bad = sources('plugins').flatMap((file) => importsOf(file)
      .filter((t) => inside(t, 'bundles') || (inside(t, 'plugins') && !own(file, t)))
      .map((t) => `${file} → ${t}`));
    assert.deepEqual(bad, []);
  });
});
