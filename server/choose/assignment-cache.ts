import { OldestFirst } from '../memory/oldest-first.js';

/**
 * Stored first assignments this node has already read, keyed by project, experience and unit. Safe to
 * cache without expiry across N nodes because a stored assignment never changes (insert-if-absent, never
 * updated): the cache only ever repeats what the database answered and is never the guard that decides
 * a first assignment — a miss still goes to the database. Bounded: the least recently used units go
 * first (nearly: see `touch`), from a project holding more than its share of the bound, so the returning visitors
 * that make up most of the traffic stay cached while one-off visitors pass.
 * @example const cache = new AssignmentCache(100_000); cache.get('acme/shop', 'hero', 'p-1');
 */
export class AssignmentCache {
  // Project → unit → its experiences' variations. Nested rather than one concatenated key per pair: a request asks
  // for 20 experiences of ONE unit, so the unit id, a string the request already holds, and the experience
  // names, config strings whose hash V8 caches, are looked up as they are. Map iteration order is insertion order,
  // and a unit that is used is moved to the end (deleted and set again) unless it is already in the newer half of
  // its project's units: the first unit is one of the least recently used, and a whole unit goes first when the
  // bound is passed.
  private readonly projects = new Map<string, ProjectUnits>();
  private entries = 0;

  /** `maxEntries` bounds the (project, experience, unit) pairs held over every project. */
  constructor(private readonly maxEntries = 100_000) {}

  /** Stored (project, experience, unit) pairs held. */
  get size(): number {
    return this.entries;
  }

  get(project: string, experience: string, unit: string): string | undefined {
    return this.unitAssignments(project, unit)?.get(experience);
  }

  /** The unit's stored variations by experience (read-only), marking the unit used; undefined when none is held. */
  unitAssignments(project: string, unit: string): ReadonlyMap<string, string> | undefined {
    const units = this.projects.get(project);
    const entry = units?.units.get(unit);
    if (entry === undefined) return undefined;
    touch(units!, unit, entry);
    return entry.variations;
  }

  /** Forgets a unit's assignments (an erased person's: the database no longer holds them). */
  forget(project: string, unit: string): void {
    const units = this.projects.get(project);
    const entry = units?.units.get(unit);
    if (entry === undefined) return;
    units!.units.delete(unit);
    units!.entries -= entry.variations.size;
    this.entries -= entry.variations.size;
  }

  set(project: string, experience: string, unit: string, variation: string): void {
    let units = this.projects.get(project);
    if (units === undefined) {
      const map = new Map<string, UnitEntry>();
      units = { units: map, oldest: new OldestFirst(map), entries: 0, moves: 0 };
      this.projects.set(project, units);
    }
    let entry = units.units.get(unit);
    if (entry === undefined) {
      entry = { variations: new Map(), usedAt: ++units.moves };
      units.units.set(unit, entry);
    } else {
      touch(units, unit, entry);
      if (entry.variations.has(experience)) return;
    }
    entry.variations.set(experience, variation);
    units.entries++;
    this.entries++;
    while (this.entries > this.maxEntries && this.evictOne(units)) { /* until within the bound */ }
  }

  /**
   * Evicts the least recently used unit of the project that grew if it holds more than its share of the bound, else
   * of a project that does (as ProjectScopedMap does). False when there was none.
   */
  private evictOne(grown: ProjectUnits): boolean {
    const share = this.maxEntries / this.projects.size;
    let from = grown;
    if (grown.entries <= share) {
      for (const units of this.projects.values()) {
        if (units.entries > share) {
          from = units;
          break;
        }
      }
    }
    const oldest = from.oldest.take();
    if (oldest === undefined) return false;
    from.entries -= oldest[1].variations.size;
    this.entries -= oldest[1].variations.size;
    return true;
  }
}

/** One project's units, oldest use first, its pair count, and how many times a unit was inserted or moved. */
interface ProjectUnits {
  units: Map<string, UnitEntry>;
  oldest: OldestFirst<string, UnitEntry>;
  entries: number;
  moves: number;
}

/** A unit's stored variations by experience, and the project's move count when it was last moved to the end. */
interface UnitEntry {
  variations: Map<string, string>;
  usedAt: number;
}

/**
 * Marks a unit used: moved to the end of its project's units, unless fewer units than half of them were inserted or
 * moved since it was (it is then in the newer half, far from eviction, and it is moved on a later use).
 */
function touch(project: ProjectUnits, unit: string, entry: UnitEntry): void {
  if (project.moves - entry.usedAt < project.units.size / 2) return;
  project.units.delete(unit);
  project.units.set(unit, entry);
  entry.usedAt = ++project.moves;
}
