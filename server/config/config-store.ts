import type { Role } from '../../wire/api/access-schema.js';
import type { ProjectConfig, ServiceConfigFile } from './config-types.js';
import { withHoldout } from './recommendations-holdout.js';

export type KeyKind = 'apiKey' | 'writeKey' | 'adminKey';

export type { Role };

export const ROLES: readonly Role[] = ['viewer', 'editor', 'admin'];

/** A configured key with the project it opens (every project of its organization for an admin key: null). */
export interface KeyEntry {
  kind: KeyKind;
  id: string;
  /** The whole key (`<id>.<secret>`) of a file key; empty for a stored key, which is known by its hash only. */
  key: string;
  org: string;
  project: string | null;
  /** Admin keys: what they may do (the file's admin keys are `admin`). */
  role?: Role;
  /** A stored key: its name, the hex SHA-256 of the whole key, the projects it is narrowed to, when it expires. */
  name?: string;
  hash?: string;
  projects?: readonly string[] | null;
  expiresAt?: number | null;
  /** A person signed in to the console (`id` and `name`: their email), standing in for an admin key of their role. */
  person?: boolean;
}

/** A project with its names, as routes and the choose engine see it. */
export interface ProjectRef {
  org: string;
  name: string;
  /** `${org}/${project}`: the project column of every table. */
  key: string;
  config: ProjectConfig;
}

interface Snapshot {
  config: ServiceConfigFile;
  /**
   * Organization → project name → project: nested, so that the names from a request's path are looked up as they
   * are (their hashes kept for the next lookup of the same request) instead of a key concatenated per lookup.
   */
  projects: Map<string, Map<string, ProjectRef>>;
  keysById: Map<string, KeyEntry>;
  /** Full keys verified against this config (ConfigStore.verifiedKeys). */
  verifiedKeys: Map<string, KeyEntry>;
}

function index(config: ServiceConfigFile): Snapshot {
  const projects = new Map<string, Map<string, ProjectRef>>();
  const keysById = new Map<string, KeyEntry>();
  for (const [org, orgConfig] of Object.entries(config.organizations)) {
    const orgProjects = new Map<string, ProjectRef>();
    projects.set(org, orgProjects);
    for (const k of orgConfig.adminKeys ?? []) {
      const id = k.slice(0, k.indexOf('.'));
      keysById.set(id, { kind: 'adminKey', id, key: k, org, project: null, role: 'admin' });
    }
    for (const [name, projectConfig] of Object.entries(orgConfig.projects)) {
      const key = `${org}/${name}`;
      // Served with the experiment and metrics of its recommendations holdout, when it has one.
      orgProjects.set(name, { org, name, key, config: withHoldout(projectConfig) });
      const add = (kind: KeyKind, keys: string[]): void => {
        for (const k of keys) {
          const id = k.slice(0, k.indexOf('.'));
          keysById.set(id, { kind, id, key: k, org, project: name });
        }
      };
      add('apiKey', projectConfig.apiKeys);
      add('writeKey', projectConfig.writeKeys);
    }
  }
  return { config, projects, keysById, verifiedKeys: new Map() };
}

/**
 * The current, validated configuration and its lookup indexes. `replace` swaps everything at once (a
 * SIGHUP reload), so a request sees either the old or the new config, never a mix.
 */
export class ConfigStore {
  private snapshot: Snapshot;

  /** `now`: the clock keys expire by (the app's; tests pin it). */
  constructor(config: ServiceConfigFile, readonly now: () => number = Date.now) {
    this.snapshot = index(config);
  }

  get config(): ServiceConfigFile {
    return this.snapshot.config;
  }

  /** Swaps in a config that has already been validated. */
  replace(config: ServiceConfigFile): void {
    this.snapshot = index(config);
  }

  /** Every project of the current config. */
  projects(): ProjectRef[] {
    return [...this.snapshot.projects.values()].flatMap((projects) => [...projects.values()]);
  }

  project(org: string, project: string): ProjectRef | undefined {
    return this.snapshot.projects.get(org)?.get(project);
  }

  /**
   * The key whose id (the part before the first dot) is `id`: the file's (ids are unique, validated), else one created
   * through the keys API (setStoredKeys).
   */
  keyById(id: string): KeyEntry | undefined {
    return this.snapshot.keysById.get(id) ?? this.stored.get(id);
  }

  private stored = new Map<string, KeyEntry>();

  /**
   * The keys created through the keys API that are not revoked (ManagedConfig reads them with every change): a revoked
   * or changed key stops at once, as keys already verified are forgotten.
   */
  setStoredKeys(keys: readonly KeyEntry[]): void {
    this.stored = new Map(keys.map((k) => [k.id, k]));
    this.snapshot.verifiedKeys.clear();
  }

  /**
   * The keys that already passed the constant-time comparison against the current config (auth/verified-keys.ts),
   * kept with it: a reload (`replace`) starts an empty one, so a removed or changed key stops working at once.
   */
  get verifiedKeys(): Map<string, KeyEntry> {
    return this.snapshot.verifiedKeys;
  }
}
