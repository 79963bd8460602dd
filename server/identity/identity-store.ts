import type { Attributes } from '../../src/event.js';
import type { Storage } from '../storage/storage.js';
import { attributesProgram, canonicalProfileProgram, profileAccountsProgram, resolveUserProgram } from './identity-programs.js';

// Reads of the identity graph, for the Choose API (form B's userId, canonical profiles, targeting attributes).

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

export function getProfileAttributes(storage: Storage, project: string, profileId: string): Promise<Attributes> {
  return storage.run(() => attributesProgram(project, 'profile', profileId));
}

export function getAccountAttributes(storage: Storage, project: string, accountId: string): Promise<Attributes> {
  return storage.run(() => attributesProgram(project, 'account', accountId));
}

/** Accounts a profile was grouped into, oldest first. */
export function getProfileAccounts(storage: Storage, project: string, profileId: string): Promise<string[]> {
  return storage.run(() => profileAccountsProgram(project, profileId));
}
