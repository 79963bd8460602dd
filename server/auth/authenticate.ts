import type { FastifyRequest } from 'fastify';
import { ROLES, type ConfigStore, type KeyEntry, type KeyKind, type ProjectRef, type Role } from '../config/config-store.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { readCredentials, type Credentials } from './read-credentials.js';
import { verifyKey } from './verified-keys.js';

export interface AuthOptions {
  /** Accept `?apiKey=<id>.<secret>` or a Bearer token (server-side callers: Choose API). Browser endpoints: false. */
  allowApiKey: boolean;
  /** Accept the organization's admin keys too (sent like an apiKey), for every project of the organization. */
  allowAdminKey?: boolean;
  /**
   * Management: only the organization's admin keys (as `?apiKey=` or Bearer); any other valid key, however sent, is
   * 403 `admin_key_required`.
   */
  adminOnly?: boolean;
  /** A source id the caller acts for (path or body): must be one of the project's `sources`. */
  sourceId?: string;
  /** The least role an admin key needs here (viewer < editor < admin); below it: 403 `role_forbidden`. */
  role?: Role;
  /** The caller, already known from the console's session cookie (a person, or a key signed in): no key is read. */
  caller?: KeyEntry;
}

/** Whether `role` is at least `needed` (viewer < editor < admin). */
export function roleAtLeast(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/**
 * An admin key's role check: the file's admin keys are `admin`.
 * @throws ServiceError `role_forbidden`.
 */
export function requireRole(entry: KeyEntry, needed: Role): void {
  const role = entry.role ?? 'admin';
  if (!roleAtLeast(role, needed)) {
    const who = entry.person ? `you (${quoted(entry.id)}) are` : `the key ${quoted(entry.name ?? entry.id)} is`;
    throw new ServiceError('role_forbidden', `This needs the ${needed} role; ${who} ${role}.`);
  }
}

export interface AuthResult {
  kind: KeyKind;
  key: KeyEntry;
  project: ProjectRef;
}

/**
 * The key a request presents, verified: 401 `missing_credentials` (saying `missing`), or `invalid_credentials` for one
 * that is malformed or no key. A key that passed the comparison before skips the hashing (see verified-keys.ts).
 */
function presentedKey(
  request: FastifyRequest, store: ConfigStore, allowApiKey: boolean, missing: string,
): { credentials: Credentials; entry: KeyEntry } {
  const credentials = readCredentials(request, allowApiKey);
  if (credentials === 'missing') throw new ServiceError('missing_credentials', missing);
  if (credentials === 'malformed') throw new ServiceError('invalid_credentials', 'The credentials are malformed.');
  const entry = verifyKey(store, credentials.key, credentials.id);
  if (!entry) throw new ServiceError('invalid_credentials', 'The key is not valid.');
  return { credentials, entry };
}

/**
 * An organization's admin key, as `?apiKey=` or `Authorization: Bearer`: what every management route (a project's, or
 * the organization's people and keys) begins with. Any other valid key is 403 `admin_key_required`.
 * @throws ServiceError `missing_credentials` (saying `missing`), `invalid_credentials`, `admin_key_required`.
 */
export function verifiedAdminKey(request: FastifyRequest, store: ConfigStore, missing: string): KeyEntry {
  const { credentials, entry } = presentedKey(request, store, true, missing);
  if (entry.kind !== 'adminKey') throw new ServiceError('admin_key_required', 'This endpoint needs an admin key of the organization.');
  if (credentials.via === 'basic') throw new ServiceError('invalid_credentials', 'Send the admin key as ?apiKey= or Authorization: Bearer.');
  return entry;
}

/**
 * Authenticates a request for `/{org}/projects/{project}`. The order of checks is chosen so that a caller
 * without a valid key learns nothing about which organizations or projects exist:
 * 1. no credentials → 401 `missing_credentials`; malformed or unknown key, or a key of a kind the endpoint
 *    does not take (an apiKey sent as Basic, a writeKey as `?apiKey`, an admin key where `allowAdminKey` is not
 *    set) → 401 `invalid_credentials`;
 * 2. a valid key, unknown org/project in the path → 404 `project_not_found` (the caller is authenticated);
 * 3. a valid key of another project (an admin key: of another organization) → 403 `key_not_for_project`;
 * 4. a source id not in the project's `sources` → 403 `source_not_allowed`.
 * With `adminOnly` (management), a valid key that is not an admin key is 403 `admin_key_required` right after step 1.
 * Keys are looked up by id (the part before the first dot, not secret) and compared in constant time.
 * @example const { kind, project } = authenticate(request, store, org, projectName, { allowApiKey: true });
 */
export function authenticate(
  request: FastifyRequest, store: ConfigStore, org: string, projectName: string, options: AuthOptions,
): AuthResult {
  const missing = options.allowApiKey
    ? 'Send an apiKey query parameter or HTTP Basic credentials with a writeKey.'
    : 'Send HTTP Basic credentials with a writeKey.';
  let entry: KeyEntry;
  if (options.caller) entry = options.caller;
  else if (options.adminOnly) entry = verifiedAdminKey(request, store, missing);
  else {
    const presented = presentedKey(request, store, options.allowApiKey, missing);
    entry = presented.entry;
    const credentials = presented.credentials;
    const kindAllowed = credentials.via === 'basic'
      ? entry.kind === 'writeKey'
      : entry.kind === 'apiKey' || (entry.kind === 'adminKey' && options.allowAdminKey === true);
    if (!kindAllowed) throw new ServiceError('invalid_credentials', 'The key is not valid.');
  }
  const project = store.project(org, projectName);
  if (!project) throw new ServiceError('project_not_found', `There is no project ${quoted(projectName)} in organization ${quoted(org)}.`);
  // An admin key (project null) opens every project of its organization, or those it is narrowed to.
  if (entry.org !== org || (entry.project !== null && entry.project !== projectName) || (entry.projects != null && !entry.projects.includes(projectName))) {
    throw new ServiceError('key_not_for_project', 'The key does not belong to this project.');
  }
  if (options.role !== undefined && entry.kind === 'adminKey') requireRole(entry, options.role);
  if (options.sourceId !== undefined && !project.config.sources.includes(options.sourceId)) {
    throw new ServiceError('source_not_allowed', `The source ${quoted(options.sourceId)} is not a source of this project.`);
  }
  return { kind: entry.kind, key: entry, project };
}

/** The authentication of a request, attached by the route's onRequest hook. */
declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthResult;
  }
}
