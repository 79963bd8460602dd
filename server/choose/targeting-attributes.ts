import type { Attributes } from '../../wire/event.js';
import type { Device } from '../config/config-types.js';
import type { Storage } from '../storage/storage.js';
import { storedTargetingProgram } from '../identity/identity-programs.js';
import type { CachedTargeting, TargetingAttributeCache } from './targeting-attribute-cache.js';

export interface TargetingInput {
  project: string;
  /** The profile the caller identified (form A), or the one form B's userId resolved to. */
  profileId: string;
  /** The person's canonical profile (see canonicalProfile in identity-store.ts); may equal `profileId`. */
  canonicalProfileId: string;
  device?: Device;
  url?: string;
  /** The request's own attributes (an OpenFeature evaluation context's), on top of the stored ones. */
  attributes?: Attributes;
}

/**
 * What `condition` rules see (README "Choose API"): the profile's attributes at the top level (the person's
 * canonical profile first, the requesting profile's own on top), the first linked account's attributes under
 * `account`, then the request's own facts, which win over stored attributes of the same name:
 * `{...profileAttributes, account: {...}, ...requestAttributes, profileId, device?, url?}`. With `cache`, the stored part may be up
 * to the cache's TTL old (see TargetingAttributeCache); the request's facts are always this request's.
 */
export function loadTargetingAttributes(
  storage: Storage, input: TargetingInput, cache?: TargetingAttributeCache,
): Attributes | Promise<Attributes> {
  const { project, profileId, canonicalProfileId } = input;
  const cached = cache?.get(project, profileId, canonicalProfileId);
  // A cache hit answers synchronously: most requests then wait for no promise here.
  if (cached !== undefined) return withRequestFacts(cached, input);
  return storage.run(() => storedTargetingProgram(project, profileId, canonicalProfileId)).then((stored: CachedTargeting) => {
    cache?.set(project, profileId, canonicalProfileId, stored);
    return withRequestFacts(stored, input);
  });
}

/**
 * The stored attributes with the request's facts on top. Conditions only read them, so what was composed for one
 * request serves the profile's next request with the same facts while the cached entry lives, rather than spreading
 * the stored attributes anew on every page view.
 */
export function withRequestFacts(
  stored: CachedTargeting, input: Pick<TargetingInput, 'profileId' | 'device' | 'url' | 'attributes'>,
): Attributes {
  const last = stored.composed;
  const own = input.attributes;
  if (own === undefined && last !== undefined && last.profileId === input.profileId && last.device === input.device && last.url === input.url) {
    return last.attributes;
  }
  const attributes: Attributes = { ...stored.profile, account: Object.freeze({ ...stored.account }), ...own, profileId: input.profileId };
  if (input.device !== undefined) attributes.device = input.device;
  if (input.url !== undefined) attributes.url = input.url;
  // A request's own attributes are its alone: what was composed with them is not the profile's next request's.
  if (own !== undefined) return Object.freeze(attributes);
  stored.composed = { profileId: input.profileId, device: input.device, url: input.url, attributes: Object.freeze(attributes) };
  return attributes;
}
