import { throughIndex, valuesOp, type SqlProgram } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import { DATA, EVENT_TIME, parseData, VIEWED } from './event-columns.js';
import { variationOf } from './exposure-pairs.js';
import { personGraphProgram, type PersonOf } from './person-graph.js';

/** Past every exposure row's id: a reported exposure comes after the rows among equal times. */
const REPORTED_IDS = 2 ** 52;

/** The units of one experiment's analysis: people, each with the variation it saw and its first exposure. */
export interface ExposedUnits {
  /** Person → unit index. */
  index: Map<unknown, number>;
  /** Per unit: the index of its variation in the experience's variations. */
  variation: Int32Array;
  /**
   * Per unit: its first exposure (epoch ms), when the service answered the Choose request that served it, or, for an
   * exposure reported when shown, when it was shown.
   */
  first: Float64Array;
  /**
   * Per unit: its first exposure on its device's own clock (the event's `timestamp` as sent), for an exposure reported
   * when shown; NaN for a Choose answer's (the service's clock). The same device's events are compared with it.
   */
  deviceFirst: Float64Array;
  /** Per unit: the session its first exposure named, for an exposure reported when shown; null for a Choose answer's. */
  session: (string | null)[];
  /** Per unit: the device of its first exposure, when the request said. */
  device: (string | null)[];
  /** Per unit: the profile its first exposure named. */
  profile: string[];
  /**
   * Per unit: what its first exposure's request told of it (browser family, utm_source, utm_medium), if anything; as
   * the exposure row's JSON text until a breakdown parses it (unit-dimensions.ts).
   */
  context: (ExposureFacts | string | null)[];
  /** People exposed to two variations or more: left out of the units, counted here. */
  multipleExposures: number;
  /** The experiment's first exposure of anybody (epoch ms), whatever the window; null when nobody was exposed. */
  earliest: number | null;
}

export interface UnitWindow {
  /** Units whose first exposure is at or after this time (epoch ms)… */
  from?: number;
  /** …and before this one. */
  to?: number;
  /**
   * Only exposures at or after `since` and before `until` count at all: those of one randomisation of the experiment
   * (a re-randomisation assigned everybody afresh; what people saw before it is another experiment's).
   */
  since?: number;
  until?: number;
}

/** What an exposure's request told of the visitor, as results break units down by. */
export interface ExposureFacts {
  browser?: string;
  utm_source?: string;
  utm_medium?: string;
}

interface Exposure {
  variation: string;
  first: number;
  /** On the device's clock: NaN for a Choose answer. */
  deviceTime: number;
  session: string | null;
  id: number;
  device: string | null;
  profile: string;
  context: ExposureFacts | string | null;
  multiple: boolean;
}

/** An `Experiment Viewed` event's facts: its data's utm fields and the browser the service noted on receipt. */
function reportedFacts(data: Record<string, unknown>, browser: unknown): ExposureFacts | null {
  const facts: ExposureFacts = {};
  if (typeof browser === 'string') facts.browser = browser;
  if (typeof data.utm_source === 'string') facts.utm_source = data.utm_source;
  if (typeof data.utm_medium === 'string') facts.utm_medium = data.utm_medium;
  return Object.keys(facts).length === 0 ? null : facts;
}

/**
 * Whether `a` came before `b`: by the device's own clock when both were reported by one device in one session (their
 * batches' travel times differ, the device's clock does not), otherwise on the service's clock, the first written
 * among equal times.
 */
function earlier(a: Exposure, b: Exposure): boolean {
  if (a.profile === b.profile && a.session !== null && a.session === b.session) return a.deviceTime < b.deviceTime;
  return a.first < b.first || (a.first === b.first && a.id < b.id);
}

/**
 * Reads the exposures of `experience` and makes them units: one per person, from its earliest exposure; a person
 * exposed to two variations is left out and counted. Variations no longer in `variations` are left out too. Reads the
 * experiment's own rows only: its exposure rows (listed by id in `experiment_exposure_ids`, migration 16, and those
 * written since, still queued), its reported exposures through `events_viewed`, and the people of the profiles these
 * name (personGraphProgram). Answers the units and the people, which the metric values attribute events by.
 * @example const { units, personOf } = yield* exposedUnitsProgram('acme/shop', 'hero', ['a', 'b'], {});
 */
export function* exposedUnitsProgram(
  project: string, experience: string, variations: readonly string[], window: UnitWindow,
): SqlProgram<{ units: ExposedUnits; personOf: PersonOf }> {
  // The queue first, then the lists, each row once. Outside a transaction each read sees the database as it is then (on
  // PostgreSQL), and the indexer moves rows from the queue into the lists in one transaction: read the other way
  // round, a row indexed between the two reads was in neither, and results came short of the exposures just written.
  const queued = yield* notYetIndexed(project, experience);
  const listed = yield* listedRows(project, experience);
  const rows = [...new Map([...listed, ...queued].map((row) => [String(row[0]), row])).values()];
  // Exposures reported when shown (`Experiment Viewed` events: `<svc-experience>`, or a caller that deferred them),
  // at the time they were shown. Ordered after the Choose answers' rows among equal times.
  const { values: reported = [] } = yield throughIndex(
    valuesOp(
      `SELECT profile_id, session_id, ts, ${EVENT_TIME}, ${DATA}, json_extract(payload, '$.context.browser') ${VIEWED}`, project, experience,
    ),
    'events', 'events_viewed',
  );
  const profiles = new Set<string>();
  for (const row of rows) profiles.add(str(row[1]));
  for (const row of reported) profiles.add(str(row[0]));
  const personOf = yield* personGraphProgram(project, profiles);
  const people = new Map<unknown, Exposure>();
  const add = (person: unknown, exposure: Exposure): void => {
    if ((window.since !== undefined && exposure.first < window.since) || (window.until !== undefined && exposure.first >= window.until)) return;
    const seen = people.get(person);
    if (seen === undefined) {
      people.set(person, exposure);
      return;
    }
    const multiple = seen.multiple || seen.variation !== exposure.variation;
    // The earliest exposure gives the unit its time and device.
    if (earlier(exposure, seen)) people.set(person, exposure);
    people.get(person)!.multiple = multiple;
  };
  for (const [id, profileId, device, ts, variation, context] of rows) {
    add(personOf(str(profileId)), {
      variation: str(variation), first: num(ts), deviceTime: Number.NaN, session: null, id: num(id),
      device: device == null ? null : str(device),
      // The context column's JSON text as stored: parsed only by a breakdown that reads it (unit-dimensions.ts).
      profile: str(profileId), context: typeof context === 'string' ? context : null, multiple: false,
    });
  }
  reported.forEach(([profileId, sessionId, deviceTime, time, rawData, browser], i) => {
    const data = parseData(rawData);
    if (data?.experience !== experience || typeof data.variation !== 'string') return;
    const device = data.device === 'mobile' || data.device === 'desktop' ? data.device : null;
    add(personOf(str(profileId)), {
      variation: data.variation, first: num(time), deviceTime: num(deviceTime), session: str(sessionId), id: REPORTED_IDS + i,
      device, profile: str(profileId),
      context: reportedFacts(data, browser), multiple: false,
    });
  });
  const known = new Map(variations.map((name, i) => [name, i]));
  const index = new Map<unknown, number>();
  const variation: number[] = [];
  const first: number[] = [];
  const deviceFirst: number[] = [];
  const session: (string | null)[] = [];
  const device: (string | null)[] = [];
  const profile: string[] = [];
  const context: (ExposureFacts | string | null)[] = [];
  let multipleExposures = 0;
  let earliest: number | null = null;
  for (const [person, exposure] of people) {
    if (earliest === null || exposure.first < earliest) earliest = exposure.first;
    if (window.from !== undefined && exposure.first < window.from) continue;
    if (window.to !== undefined && exposure.first >= window.to) continue;
    if (exposure.multiple) {
      multipleExposures++;
      continue;
    }
    const at = known.get(exposure.variation);
    if (at === undefined) continue;
    index.set(person, variation.length);
    variation.push(at);
    first.push(exposure.first);
    deviceFirst.push(exposure.deviceTime);
    session.push(exposure.session);
    device.push(exposure.device);
    profile.push(exposure.profile);
    context.push(exposure.context);
  }
  const units = {
    index, variation: Int32Array.from(variation), first: Float64Array.from(first), deviceFirst: Float64Array.from(deviceFirst),
    session, device, profile, context, multipleExposures, earliest,
  };
  return { units, personOf };
}


/** Ids per IN list: under both databases' bound-parameter limits. */
const IDS = 500;

/**
 * The experiment's exposures in the rows its lists name, as [exposure_id, profile_id, device, ts, variation]: the
 * lists (one range of their key), then the rows by id, ascending. A row gone since (erased) is not found; a row whose
 * pair was taken out (retention) no longer names the experiment.
 */
function* listedRows(project: string, experience: string): SqlProgram<unknown[][]> {
  const { values: lists = [] } = yield valuesOp(
    'SELECT ids FROM experiment_exposure_ids WHERE project = ? AND experience = ? ORDER BY first_id', project, experience,
  );
  const ids = [...new Set(lists.flatMap(([list]) => JSON.parse(str(list)) as number[]))].sort((a, b) => a - b);
  const rows: unknown[][] = [];
  for (let i = 0; i < ids.length; i += IDS) {
    const chunk = ids.slice(i, i + IDS);
    const { values: found = [] } = yield valuesOp(
      `SELECT id, profile_id, device, ts, choices, context FROM exposures WHERE id IN (${chunk.map(() => '?').join(', ')})`, ...chunk,
    );
    rows.push(...ofExperience(found, experience));
  }
  return rows;
}

/**
 * The experiment's exposures in the rows the indexer has not listed yet (the queue `exposures_unindexed`: what was
 * written since its last chunk), as listedRows gives them.
 */
function* notYetIndexed(project: string, experience: string): SqlProgram<unknown[][]> {
  const { values: queued = [] } = yield valuesOp(
    `SELECT e.id, e.profile_id, e.device, e.ts, e.choices, e.context FROM exposures_unindexed q JOIN exposures e ON e.id = q.exposure_id
     WHERE e.project = ?`,
    project,
  );
  return ofExperience(queued, experience);
}

/**
 * Exposure rows [id, profile_id, device, ts, choices, context] as the experiment's: [id, profile_id, device, ts,
 * variation, context].
 */
function ofExperience(found: readonly unknown[][], experience: string): unknown[][] {
  const rows: unknown[][] = [];
  for (const [id, profileId, device, ts, choices, context] of found) {
    const variation = variationOf(str(choices), experience);
    if (variation !== undefined) rows.push([id, profileId, device, ts, variation, context]);
  }
  return rows;
}
