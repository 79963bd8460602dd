// One suite's database, storage and app: node:test before/after hooks plus a handle to what they set up.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { after, afterEach, before } from 'node:test';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildAppOptions } from '../../../server/app.js';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { openSqliteStorage } from '../../../server/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../../../server/storage/storage.js';
import type { TestDatabase, TestDriver } from './storage-drivers.js';
import { testConfig } from './test-config.js';
import { SCHEMA } from '../../../server/schema.js';
import { checkAnswers, type AnswerViolation } from './answer-contract.js';

/** What `before` set up for the suite; reading it before then (or after a failed setup) throws. */
export interface StorageHandle {
  readonly db: TestDatabase;
  readonly storage: Storage;
  /** A restart on the same data: closes the storage and opens the same database again. */
  reopen(): Promise<Storage>;
}

export interface AppHandle extends StorageHandle {
  readonly app: FastifyInstance;
  /** A restart: closes the app and the storage, reopens the same database and builds a new app on it. */
  restart(config?: ServiceConfigFile): Promise<FastifyInstance>;
}

/** buildApp's options but the storage; `config` defaults to a fresh testConfig(). */
export type TestAppOptions = Partial<Omit<BuildAppOptions, 'storage'>>;

function setUp<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not set up: use it inside a test, after the suite's before hook`);
  return value;
}

/**
 * Registers hooks that create a database before the suite and drop it after, opening nothing on it: for suites whose
 * child processes open it.
 */
export function useDatabase(driver: TestDriver): { readonly db: TestDatabase } {
  let db: TestDatabase | undefined;
  before(async () => {
    db = await driver.create();
  });
  after(() => setUp(db, 'db').destroy());
  return {
    get db() { return setUp(db, 'db'); },
  };
}

/** Registers hooks that create a database and open storage on it before the suite, and close and drop it after. */
export function useStorage(driver: TestDriver): StorageHandle {
  return useSuite(driver, undefined);
}

/** The DNS of apps under test unless a test gives its own: none (a webhook to a host name fails its attempt). */
const NO_LOOKUP = (hostname: string): Promise<never> => Promise.reject(new Error(`tests resolve no host names (${hostname})`));

/**
 * Like useStorage, plus an app built on that storage before the suite and closed after it (before the storage).
 * `options` may be a function, called each time the app is built (in `before` and on restart).
 * Every JSON answer the app sends is checked against the API's description (answer-contract.ts): a test during which
 * one broke it fails.
 */
export function useApp(driver: TestDriver, options: TestAppOptions | (() => TestAppOptions) = {}): AppHandle {
  return useSuite(driver, options);
}

/** The hooks and the handle; without app options no app is built. */
function useSuite(driver: TestDriver, options: TestAppOptions | (() => TestAppOptions) | undefined): AppHandle {
  let db: TestDatabase | undefined;
  let storage: Storage | undefined;
  let app: FastifyInstance | undefined;
  const violations: AnswerViolation[] = [];
  const build = async (config?: ServiceConfigFile): Promise<FastifyInstance> => {
    const resolved = typeof options === 'function' ? options() : (options ?? {});
    const built = await buildApp({
      ...resolved,
      // No test resolves a real host name: a webhook's host resolves only through a test's own lookup.
      webhooks: { lookup: NO_LOOKUP, ...resolved.webhooks },
      config: config ?? resolved.config ?? testConfig(),
      storage: setUp(storage, 'storage'),
    });
    checkAnswers(built, violations);
    return built;
  };
  if (options !== undefined) {
    afterEach(() => {
      const found = violations.splice(0);
      assert.deepEqual(found, [], 'answers that break the API\'s description (GET /v1/openapi.json)');
    });
  }
  before(async () => {
    db = await driver.create();
    storage = await db.open();
    if (options !== undefined) app = await build();
  });
  after(async () => {
    if (options !== undefined) await setUp(app, 'app').close();
    await setUp(storage, 'storage').close();
    await setUp(db, 'db').destroy();
  });
  const reopen = async (): Promise<Storage> => {
    await setUp(storage, 'storage').close();
    storage = await setUp(db, 'db').open();
    return storage;
  };
  return {
    get db() { return setUp(db, 'db'); },
    get storage() { return setUp(storage, 'storage'); },
    get app() { return setUp(app, 'app'); },
    reopen,
    async restart(config?: ServiceConfigFile) {
      await setUp(app, 'app').close();
      await reopen();
      app = await build(config);
      return app;
    },
  };
}

/** A SQLite storage and a second raw connection to its file, for tests that change the schema under it. */
export interface SqliteSideHandle {
  readonly storage: Storage;
  /** Another connection to the same database: triggers made through it poison the service's writes. */
  readonly side: Database.Database;
}

/** Registers hooks that open a SQLite storage in a temp dir plus a side connection, and remove both after. */
export function useSqliteWithSide(): SqliteSideHandle {
  let dir: string | undefined;
  let storage: Storage | undefined;
  let side: Database.Database | undefined;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-side-'));
    storage = await openSqliteStorage(join(dir, 'svc.db'), SCHEMA);
    // A second connection changes the schema under the service, as an operator (or a corrupt page) could.
    side = new Database(join(dir, 'svc.db'));
  });
  after(async () => {
    side?.close();
    await storage?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get storage() {
      return setUp(storage, 'storage');
    },
    get side() {
      return setUp(side, 'side connection');
    },
  };
}
