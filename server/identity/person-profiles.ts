import { op, type SqlProgram } from '../storage/sql-program.js';
import { str } from '../storage/sql-values.js';

// Every profile of one person, for what is read per person on a hot path (a feed's `exclude`). A person is what
// results and the feed report call one (results/person-graph.ts): profiles joined by every identify and alias link
// (`person_links`: a profile and the userId it was identified as, and for an alias the anotherUserId it joined), not
// only the first link of each that Choose's canonical profile follows: a second device identified as the same user,
// or a user aliased to another, is the same person.

/**
 * The most profiles (and user ids) one person is read with. A shared device (a shop's kiosk) identified as hundreds of
 * users links them all into one "person"; past this many, the rest of them is not followed, so one feed request reads
 * a bounded number of rows.
 */
export const MAX_PERSON_PROFILES = 200;

const LINKS = 'SELECT profile_id, user_id, other_user_id FROM person_links';
const marks = (n: number): string => new Array<string>(n).fill('?').join(', ');

/**
 * The profiles of the person `profileId` belongs to, itself first, followed through `person_links` by its indexes
 * (the key by profile, person_links_user, person_links_other), one statement a round, until nothing new turns up or
 * MAX_PERSON_PROFILES are found. A profile nobody identified costs one indexed probe and is a person of its own; two
 * devices identified as one user, three.
 * @example const profiles = yield* personProfilesProgram('acme/shop', 'device-b'); // ['device-b', 'device-a']
 */
export function* personProfilesProgram(project: string, profileId: string): SqlProgram<string[]> {
  const profiles = new Set([profileId]);
  const users = new Set<string>();
  let nextProfiles = [profileId];
  let nextUsers: string[] = [];
  while ((nextProfiles.length > 0 || nextUsers.length > 0) && profiles.size < MAX_PERSON_PROFILES) {
    // One statement a round: the links of the profiles and of the user ids found in the round before.
    const parts: [string, string[]][] = [];
    if (nextProfiles.length > 0) parts.push([`profile_id IN (${marks(nextProfiles.length)})`, nextProfiles]);
    if (nextUsers.length > 0) {
      parts.push([`user_id IN (${marks(nextUsers.length)})`, nextUsers]);
      // `other_user_id <> ''` lets the partial index person_links_other answer (an identify's row holds '').
      parts.push([`other_user_id <> '' AND other_user_id IN (${marks(nextUsers.length)})`, nextUsers]);
    }
    const { rows } = yield op(
      parts.map(([where]) => `${LINKS} WHERE project = ? AND ${where}`).join(' UNION ALL '),
      ...parts.flatMap(([, ids]) => [project, ...ids]),
    );
    nextProfiles = [];
    nextUsers = [];
    for (const row of rows) {
      const profile = str(row.profile_id);
      if (!profiles.has(profile) && profiles.size < MAX_PERSON_PROFILES) {
        profiles.add(profile);
        nextProfiles.push(profile);
      }
      for (const user of [str(row.user_id), str(row.other_user_id)]) {
        if (user === '' || users.has(user) || users.size >= MAX_PERSON_PROFILES) continue;
        users.add(user);
        nextUsers.push(user);
      }
    }
  }
  return [...profiles];
}
