import type { Attributes } from '../../src/event.js';
import type { Device, ExperienceConfig } from '../config/config-types.js';
import type { Storage } from '../storage/storage.js';
import type { StoredTargeting, TargetingAttributeCache } from './targeting-attribute-cache.js';
import { getAccountAttributes, getProfileAccounts, getProfileAttributes } from '../identity/identity-store.js';

/** Names and groups of the experiences that carry a `condition`, computed once per config. */
interface ConditionIndex {
  names: ReadonlySet<string>;
  groups: ReadonlySet<string>;
}

// Keyed by the config's experiences array: a config reload swaps the array, so the index follows it.
const indexes = new WeakMap<readonly ExperienceConfig[], ConditionIndex>();

function conditionIndex(experiences: readonly ExperienceConfig[]): ConditionIndex {
  let index = indexes.get(experiences);
  if (!index) {
    const names = new Set<string>();
    const groups = new Set<string>();
    for (const e of experiences) {
      if (e.condition === undefined || e.condition === null) continue;
      names.add(e.name);
      if (e.group !== undefined) groups.add(e.group);
    }
    index = { names, groups };
    indexes.set(experiences, index);
  }
  return index;
}

/**
 * Whether any experience the request may select has a `condition`. Only then are profile and account
 * attributes read: most requests target nobody and so cost no attribute round trips.
 */
export function needsTargeting(
  experiences: readonly ExperienceConfig[],
  names: readonly string[] | undefined,
  groups: readonly string[] | undefined,
): boolean {
  const index = conditionIndex(experiences);
  if (index.names.size === 0) return false;
  if (names?.some((n) => index.names.has(n))) return true;
  return groups?.some((g) => index.groups.has(g)) ?? false;
}

export interface TargetingInput {
  project: string;
  /** The profile the caller identified (form A), or the one form B's userId resolved to. */
  profileId: string;
  /** The person's canonical profile (see canonicalProfile in identity-store.ts); may equal `profileId`. */
  canonicalProfileId: string;
  device?: Device;
  url?: string;
}

/**
 * What `condition` rules see (README "Choose API"): the profile's attributes at the top level (the person's
 * canonical profile first, the requesting profile's own on top), the first linked account's attributes under
 * `account`, then the request's own facts, which win over stored attributes of the same name:
 * `{...profileAttributes, account: {...}, profileId, device?, url?}`. With `cache`, the stored part may be up
 * to the cache's TTL old (see TargetingAttributeCache); the request's facts are always this request's.
 */
export function loadTargetingAttributes(
  storage: Storage, input: TargetingInput, cache?: TargetingAttributeCache,
): Attributes | Promise<Attributes> {
  const { project, profileId, canonicalProfileId } = input;
  const cached = cache?.get(project, profileId, canonicalProfileId);
  // A cache hit answers synchronously: most requests then wait for no promise here.
  if (cached !== undefined) return withRequestFacts(cached, input);
  return loadStored(storage, input).then((stored) => {
    cache?.set(project, profileId, canonicalProfileId, stored);
    return withRequestFacts(stored, input);
  });
}

/** The attributes last composed from a cached StoredTargeting, with the request facts they were composed for. */
interface Composed {
  profileId: string;
  device: Device | undefined;
  url: string | undefined;
  attributes: Attributes;
}

// Conditions only read attributes, so the object composed for one request serves the next request of the same
// profile with the same facts (device, url) as long as the cached stored part is the same object: spreading the
// stored attributes anew was ≈ 4 % of the main thread's CPU under the Choose bench. Frozen, since it is shared.
const composedFor = new WeakMap<StoredTargeting, Composed>();

function withRequestFacts(stored: StoredTargeting, input: TargetingInput): Attributes {
  const last = composedFor.get(stored);
  if (last !== undefined && last.profileId === input.profileId && last.device === input.device && last.url === input.url) {
    return last.attributes;
  }
  const attributes: Attributes = { ...stored.profile, account: Object.freeze({ ...stored.account }), profileId: input.profileId };
  if (input.device !== undefined) attributes.device = input.device;
  if (input.url !== undefined) attributes.url = input.url;
  Object.freeze(attributes);
  composedFor.set(stored, { profileId: input.profileId, device: input.device, url: input.url, attributes });
  return attributes;
}

async function loadStored(storage: Storage, input: TargetingInput): Promise<StoredTargeting> {
  const { project, profileId, canonicalProfileId } = input;
  const sameProfile = profileId === canonicalProfileId;
  const [own, canonical, ownAccounts] = await Promise.all([
    getProfileAttributes(storage, project, profileId),
    sameProfile ? Promise.resolve({}) : getProfileAttributes(storage, project, canonicalProfileId),
    getProfileAccounts(storage, project, profileId),
  ]);
  const accounts = ownAccounts.length > 0 || sameProfile
    ? ownAccounts
    : await getProfileAccounts(storage, project, canonicalProfileId);
  const account = accounts[0] === undefined ? {} : await getAccountAttributes(storage, project, accounts[0]);
  return { profile: { ...canonical, ...own }, account };
}
