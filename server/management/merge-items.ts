import type { ExperienceConfig, FeedConfig, MetricConfig, ProjectConfig, ServiceConfigFile } from '../config/config-types.js';
import type { Item, ItemKind, StoredItem } from './managed-item-store.js';

/** A project's items written through the API, by kind and name (the latest version of each). */
export type ProjectItems = Map<ItemKind, Map<string, StoredItem>>;

/** Stored items by project key (`org/project`). */
export function groupItems(items: readonly StoredItem[]): Map<string, ProjectItems> {
  const byProject = new Map<string, ProjectItems>();
  for (const stored of items) {
    let kinds = byProject.get(stored.project);
    if (!kinds) byProject.set(stored.project, (kinds = new Map()));
    let byName = kinds.get(stored.kind);
    if (!byName) kinds.set(stored.kind, (byName = new Map()));
    byName.set(stored.name, stored);
  }
  return byProject;
}

/** The name an item goes by in paths and in the database: a feed's is its id. */
export function itemName(kind: ItemKind, item: Item): string {
  return kind === 'feed' ? String(item.id) : String(item.name);
}

/**
 * A file list with the API's items laid over it: an API item replaces the file's item of the same name in place, a
 * deleted one hides it, and the API's new items follow the file's.
 */
function overlay<T extends object>(kind: ItemKind, fromFile: readonly T[] | undefined, stored: Map<string, StoredItem> | undefined): T[] | undefined {
  if (!stored || stored.size === 0) return fromFile as T[] | undefined;
  const out: T[] = [];
  const seen = new Set<string>();
  for (const item of fromFile ?? []) {
    const name = itemName(kind, item as Item);
    seen.add(name);
    const replacement = stored.get(name);
    if (!replacement) out.push(item);
    else if (replacement.item !== null) out.push(replacement.item as T);
  }
  for (const [name, replacement] of stored) {
    if (!seen.has(name) && replacement.item !== null) out.push(replacement.item as T);
  }
  return out;
}

/**
 * The configuration every node serves: the file's organizations, projects and keys (the root of trust, only ever
 * from the file) with each project's experiences, metrics and feeds overlaid by the items written through the API.
 * The file's objects are not modified.
 */
export function mergeItems(file: ServiceConfigFile, items: Map<string, ProjectItems>): ServiceConfigFile {
  if (items.size === 0) return file;
  const organizations: ServiceConfigFile['organizations'] = {};
  for (const [org, orgConfig] of Object.entries(file.organizations)) {
    const projects: Record<string, ProjectConfig> = {};
    for (const [name, project] of Object.entries(orgConfig.projects)) {
      const stored = items.get(`${org}/${name}`);
      if (!stored) {
        projects[name] = project;
        continue;
      }
      const merged: ProjectConfig = { ...project };
      const experiences = overlay<ExperienceConfig>('experience', project.experiences, stored.get('experience'));
      const metrics = overlay<MetricConfig>('metric', project.metrics, stored.get('metric'));
      const feeds = overlay<FeedConfig>('feed', project.feeds, stored.get('feed'));
      if (experiences !== undefined) merged.experiences = experiences;
      if (metrics !== undefined) merged.metrics = metrics;
      if (feeds !== undefined) merged.feeds = feeds;
      projects[name] = merged;
    }
    organizations[org] = { ...orgConfig, projects };
  }
  return { ...file, organizations };
}
