import type { ConfigStore } from '../config/config-store.js';
import type { ServiceConfigFile } from '../config/config-types.js';
import { validateConfig } from '../config/validate-config.js';
import type { Storage } from '../storage/storage.js';
import { CHANGES_CHANNEL, readItems, readRevision, type StoredItem } from './managed-item-store.js';
import { groupItems, mergeItems, type ProjectItems } from './merge-items.js';
import { storedKeysProgram } from './access-store.js';
import type { ConfigHealth } from '../http/health-route.js';

export interface ManagedConfigOptions {
  /** How often the revision is polled: the bound on how late another node's write is served here. */
  pollMs?: number;
  logger?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  now?: () => number;
}


const DEFAULT_POLL_MS = 250;

/**
 * The configuration this node serves: the file (reloaded on SIGHUP) with the items written through the management
 * API laid over it, kept current from the database. A write on any node bumps a revision; each node polls it every
 * `pollMs` (and on PostgreSQL also wakes on `LISTEN`), reads the items when it changed and swaps the merged config in
 * at once. A node that cannot read the database keeps serving its last good config and says so (`health`).
 */
export class ManagedConfig {
  private file: ServiceConfigFile;
  private items = new Map<string, ProjectItems>();
  private revision = -1;
  private staleSince: number | null = null;
  private lastError = '';
  private timer: NodeJS.Timeout | undefined;
  private stopListening: (() => Promise<void>) | undefined;
  private listening = false;
  private refreshing: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private readonly now: () => number;

  constructor(
    private readonly store: ConfigStore,
    private readonly storage: Storage,
    private readonly options: ManagedConfigOptions = {},
  ) {
    this.file = store.config;
    this.now = options.now ?? Date.now;
  }

  /** Reads the stored items once (a failure here fails the start), then follows changes. */
  async start(): Promise<void> {
    await this.load();
    const poll = (): void => {
      this.timer = setTimeout(() => {
        void this.refresh().finally(() => {
          if (!this.closed) poll();
        });
      }, this.options.pollMs ?? DEFAULT_POLL_MS);
      this.timer.unref();
    };
    poll();
    await this.listen();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.stopListening?.();
    await this.refreshing;
  }

  get health(): ConfigHealth {
    const health: ConfigHealth = { revision: Math.max(this.revision, 0) };
    if (this.staleSince !== null) health.stale = { since: new Date(this.staleSince).toISOString(), error: this.lastError };
    return health;
  }

  /** The items written through the API for a project (latest version of each, deleted ones as null items). */
  projectItems(project: string): ProjectItems | undefined {
    return this.items.get(project);
  }

  /** The file as last loaded (its items carry version 1). */
  get fileConfig(): ServiceConfigFile {
    return this.file;
  }

  /**
   * A reloaded file (SIGHUP): validated with the stored items laid over it, then served.
   * @throws ConfigError when the file, or the file with the stored items, is invalid; the old config stays.
   */
  replaceFile(next: ServiceConfigFile): void {
    const merged = validateConfig(mergeItems(validateConfig(next), this.items));
    this.file = next;
    this.store.replace(merged);
  }

  /**
   * Brings this node up to date with the database now (a write calls it before answering, so the writing node
   * serves its change at once). Concurrent calls share one read, and a call during a read causes one more.
   */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    const run = (async () => {
      do {
        this.again = false;
        await this.refreshOnce();
      } while (this.again && !this.closed);
    })().finally(() => {
      this.refreshing = null;
    });
    this.refreshing = run;
    return run;
  }

  private async refreshOnce(): Promise<void> {
    try {
      const revision = await this.storage.run(readRevision);
      if (revision !== this.revision) await this.load();
      if (this.staleSince !== null) this.options.logger?.info({ revision: this.revision }, 'configuration database readable again');
      this.staleSince = null;
      if (!this.listening && !this.closed) await this.listen();
    } catch (error) {
      if (this.staleSince === null) {
        this.staleSince = this.now();
        this.options.logger?.warn({ error: String(error) }, 'cannot read the configuration database; serving the last good config');
      }
      this.lastError = error instanceof Error ? error.message : String(error);
    }
  }

  private async load(): Promise<void> {
    // One read of what management wrote: its items and the keys made through the API, at one revision.
    const { revision, items, keys } = await this.storage.run(function* () {
      return { ...(yield* readItems()), keys: yield* storedKeysProgram() };
    });
    this.apply(revision, items);
    this.store.setStoredKeys(keys);
  }

  private apply(revision: number, items: StoredItem[]): void {
    const grouped = groupItems(items);
    // Every write was validated against the config of its time; a file reloaded since could contradict one (a feed
    // an API experience uses removed from the file): then the last good config stays, and health says why.
    const merged = validateConfig(mergeItems(this.file, grouped));
    this.items = grouped;
    this.revision = revision;
    this.store.replace(merged);
  }

  private async listen(): Promise<void> {
    if (!this.storage.listen) return;
    try {
      this.stopListening = await this.storage.listen(CHANGES_CHANNEL, () => void this.refresh(), () => {
        this.listening = false;
      });
      this.listening = true;
    } catch {
      // Polling carries on; the next successful poll listens again.
    }
  }
}
