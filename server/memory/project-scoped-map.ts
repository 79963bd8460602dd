import { OldestFirst } from './oldest-first.js';

/**
 * Values keyed by (project, id), in maps nested by project: the id (a profile id parsed from the request) is looked
 * up as it is, so its hash is computed once and reused by every cache keyed by it, where a concatenated key was a new
 * string to flatten and hash in each cache on every request. Within a project, insertion order is age order (`set`
 * moves an id to the end). Bounded as a whole: past `maxEntries`, the oldest entry of the project that just grew
 * goes if that project holds more than its share of the bound, else the oldest of a project that does (so a busy
 * project cannot push out a quiet one's entries, and a project gone from the config is emptied as others need
 * room).
 * @example const map = new ProjectScopedMap<number>(50_000); map.set('acme/shop', 'p-1', 1); map.get('acme/shop', 'p-1');
 */
export class ProjectScopedMap<V> {
  private projects = new Map<string, ProjectIds<V>>();
  private entries = 0;

  constructor(private readonly maxEntries: number) {}

  /** Entries held, over every project. */
  get size(): number {
    return this.entries;
  }

  get(project: string, id: string): V | undefined {
    return this.projects.get(project)?.ids.get(id);
  }

  delete(project: string, id: string): void {
    if (this.projects.get(project)?.ids.delete(id)) this.entries--;
  }

  /** Sets `id` as the project's newest entry. */
  set(project: string, id: string, value: V): void {
    let scoped = this.projects.get(project);
    if (scoped === undefined) {
      const ids = new Map<string, V>();
      scoped = { ids, oldest: new OldestFirst(ids) };
      this.projects.set(project, scoped);
    }
    if (scoped.ids.delete(id)) this.entries--;
    scoped.ids.set(id, value);
    this.entries++;
    if (this.entries > this.maxEntries) this.evictOne(scoped);
  }

  clear(): void {
    this.projects = new Map();
    this.entries = 0;
  }

  private evictOne(grown: ProjectIds<V>): void {
    const share = this.maxEntries / this.projects.size;
    let from = grown;
    let fromProject: string | undefined;
    if (grown.ids.size <= share) {
      // Over the bound as a whole, so some project holds more than its share.
      for (const [project, scoped] of this.projects) {
        if (scoped.ids.size > share) {
          from = scoped;
          fromProject = project;
          break;
        }
      }
    }
    if (from.oldest.take() === undefined) return;
    this.entries--;
    if (fromProject !== undefined && from.ids.size === 0) this.projects.delete(fromProject);
  }
}

/** One project's entries, oldest first, and the way to their oldest (OldestFirst). */
interface ProjectIds<V> {
  ids: Map<string, V>;
  oldest: OldestFirst<string, V>;
}
