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
  private projects = new Map<string, Map<string, V>>();
  private entries = 0;

  constructor(private readonly maxEntries: number) {}

  /** Entries held, over every project. */
  get size(): number {
    return this.entries;
  }

  get(project: string, id: string): V | undefined {
    return this.projects.get(project)?.get(id);
  }

  delete(project: string, id: string): void {
    if (this.projects.get(project)?.delete(id)) this.entries--;
  }

  /** Sets `id` as the project's newest entry. */
  set(project: string, id: string, value: V): void {
    let ids = this.projects.get(project);
    if (ids === undefined) {
      ids = new Map();
      this.projects.set(project, ids);
    }
    if (ids.delete(id)) this.entries--;
    ids.set(id, value);
    this.entries++;
    if (this.entries > this.maxEntries) this.evictOne(ids);
  }

  clear(): void {
    this.projects = new Map();
    this.entries = 0;
  }

  private evictOne(grown: Map<string, V>): void {
    const share = this.maxEntries / this.projects.size;
    let from = grown;
    let fromProject: string | undefined;
    if (grown.size <= share) {
      // Over the bound as a whole, so some project holds more than its share.
      for (const [project, ids] of this.projects) {
        if (ids.size > share) {
          from = ids;
          fromProject = project;
          break;
        }
      }
    }
    const oldest = from.keys().next();
    if (oldest.done) return;
    from.delete(oldest.value);
    this.entries--;
    if (fromProject !== undefined && from.size === 0) this.projects.delete(fromProject);
  }
}
