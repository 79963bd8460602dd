/**
 * Stored first assignments this node has already read, keyed by project, experience and unit. Safe to
 * cache without expiry across N nodes because a stored assignment never changes (insert-if-absent, never
 * updated): the cache only ever repeats what the database answered and is never the guard that decides
 * a first assignment (DESIGN 4) — a miss still goes to the database. Bounded per project: the least recently used
 * units go first, so the returning visitors that make up most of the traffic stay cached while one-off visitors
 * pass.
 * @example const cache = new AssignmentCache(100_000); cache.get('acme/shop', 'hero', 'p-1');
 */
export class AssignmentCache {
  // Project → unit → its experiences' variations. Nested rather than one concatenated key per pair: a request asks
  // for 20 experiences of ONE unit, and hashing a freshly built string per pair (later, per unit) was ≈ 1–5 % of the
  // service's CPU under the bench; this way the unit id, a string the request already holds, and the experience
  // names, config strings whose hash V8 caches, are looked up as they are. Map iteration order is insertion order,
  // and a unit that is used is deleted and set again (moved to the end): a project's first unit is its least
  // recently used, and a whole unit goes first when the bound is passed.
  private readonly projects = new Map<string, ProjectUnits>();
  private entries = 0;

  /** `maxEntries` bounds each project's (experience, unit) pairs. */
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
    const experiences = units?.units.get(unit);
    if (experiences !== undefined) touch(units!, unit, experiences);
    return experiences;
  }

  set(project: string, experience: string, unit: string, variation: string): void {
    let units = this.projects.get(project);
    if (units === undefined) {
      units = { units: new Map(), entries: 0, tail: undefined };
      this.projects.set(project, units);
    }
    let experiences = units.units.get(unit);
    if (experiences === undefined) {
      experiences = new Map();
      units.units.set(unit, experiences);
      units.tail = unit;
    } else {
      touch(units, unit, experiences);
      if (experiences.has(experience)) return;
    }
    experiences.set(experience, variation);
    units.entries++;
    this.entries++;
    while (units.entries > this.maxEntries) {
      const oldest = units.units.entries().next();
      if (oldest.done) break;
      units.units.delete(oldest.value[0]);
      units.entries -= oldest.value[1].size;
      this.entries -= oldest.value[1].size;
      if (oldest.value[0] === units.tail) units.tail = undefined;
    }
  }
}

/** One project's units in least-recently-used order, its pair count, and the unit last moved to the end. */
interface ProjectUnits {
  units: Map<string, Map<string, string>>;
  entries: number;
  // A request reads its unit's experiences one after another, so only the first read of a run pays for the move.
  tail: string | undefined;
}

/** Marks a unit most recently used (moves it to the end of its project's units). */
function touch(project: ProjectUnits, unit: string, experiences: Map<string, string>): void {
  if (unit === project.tail) return;
  project.units.delete(unit);
  project.units.set(unit, experiences);
  project.tail = unit;
}
