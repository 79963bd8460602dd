import { valuesOp, type SqlProgram } from '../storage/sql-program.js';
import { str } from '../storage/sql-values.js';
import type { ExposedUnits, ExposureFacts } from './exposed-units.js';

// What results break an experiment's units down by: facts of each unit's first exposure (its device, its browser, the
// page's utm_source and utm_medium), whether it was a new visitor then, or an attribute of its profile.

/** The dimensions results know by name; `attribute:<key>` names a profile attribute besides. */
export const DIMENSIONS = ['device', 'browser', 'visitor', 'utm_source', 'utm_medium'] as const;

export type ResultsDimension = (typeof DIMENSIONS)[number] | `attribute:${string}`;

/** The value of a unit whose exposure did not say. */
export const UNKNOWN = 'unknown';

/** A session ends after this long without activity (the SDK's rule): a first exposure within it is a new visitor's. */
const SESSION_MS = 30 * 60_000;

/** An RFC 9562 version 7 UUID (the SDK's profile ids): its first 48 bits are when it was minted. */
const UUID_V7 = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * `new` when the unit's first exposure came within the first session of its profile (the SDK mints a profile id, a
 * version 7 UUID, on a browser's first visit: the id says when), `returning` when later; `unknown` for a profile id
 * that is not the SDK's (a server-side caller's own ids).
 */
export function visitorOf(profileId: string, firstExposure: number): string {
  const match = UUID_V7.exec(profileId);
  if (match === null) return UNKNOWN;
  const minted = Number.parseInt(`${match[1]}${match[2]}`, 16);
  return firstExposure - minted < SESSION_MS ? 'new' : 'returning';
}

/** The unit's first exposure on its device's clock when the device reported it, else on the service's. */
function onDeviceClock(units: ExposedUnits, unit: number): number {
  const device = units.deviceFirst[unit] as number;
  return Number.isNaN(device) ? (units.first[unit] as number) : device;
}

/** Ids per IN list: under both databases' bound-parameter limits. */
const IDS = 500;

/**
 * Each unit's value of `dimension` (UNKNOWN where its exposure did not say). A profile attribute is read for the
 * profile of the unit's first exposure as it is now: its string, or its JSON text for another value.
 */
export function* dimensionValuesProgram(project: string, dimension: ResultsDimension, units: ExposedUnits): SqlProgram<string[]> {
  const count = units.variation.length;
  if (dimension === 'device') return units.device.map((d) => d ?? UNKNOWN);
  // The id was minted on the device's clock: an exposure it reported is compared on the same clock.
  if (dimension === 'visitor') return units.profile.map((p, i) => visitorOf(p, onDeviceClock(units, i)));
  if (dimension === 'browser' || dimension === 'utm_source' || dimension === 'utm_medium') {
    return units.context.map((c) => (typeof c === 'string' ? JSON.parse(c) as ExposureFacts : c)?.[dimension] ?? UNKNOWN);
  }
  const key = dimension.slice('attribute:'.length);
  const byProfile = new Map<string, string>();
  const profiles = [...new Set(units.profile)];
  for (let i = 0; i < profiles.length; i += IDS) {
    const chunk = profiles.slice(i, i + IDS);
    const { values = [] } = yield valuesOp(
      `SELECT owner_id, value FROM attributes WHERE project = ? AND scope = 'profile' AND owner_id IN (${chunk.map(() => '?').join(', ')})
       AND key = ?`,
      project, ...chunk, key,
    );
    for (const [owner, value] of values) {
      const parsed = JSON.parse(str(value)) as unknown;
      if (parsed !== null) byProfile.set(str(owner), typeof parsed === 'string' ? parsed : JSON.stringify(parsed));
    }
  }
  return Array.from({ length: count }, (_, i) => byProfile.get(units.profile[i] as string) ?? UNKNOWN);
}
