import type { Storage } from '../storage/storage.js';
import { canonicalProfileProgram, resolveUserProgram } from './identity-programs.js';

// Reads of the identity graph, for the Choose API (form B's userId, canonical profiles); its targeting reads are
// programs in identity-programs.ts.

/** The profile a user id belongs to, following alias links; null when no identify linked it. */
export function resolveUser(storage: Storage, project: string, userId: string): Promise<string | null> {
  return storage.run(() => resolveUserProgram(project, userId));
}

/**
 * The profile whose assignments `profileId` shares: once the profile was identified (or aliased) as a user, that
 * user's canonical profile (what `resolveUser` answers), else the profile itself. This is what carries an anonymous
 * profile's assignments over to the identified person, so nobody flips on log-in.
 */
export function canonicalProfile(storage: Storage, project: string, profileId: string): Promise<string> {
  return storage.run(() => canonicalProfileProgram(project, profileId));
}
