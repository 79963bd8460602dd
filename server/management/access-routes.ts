import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireRole, verifiedAdminKey } from '../auth/authenticate.js';
import { ROLES, type ConfigStore, type KeyEntry, type Role } from '../config/config-store.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { isoTime } from '../http/iso-time.js';
import type { Storage } from '../storage/storage.js';
import { createKey, deletePerson, listKeys, listPeople, putPerson, revokeKey } from './access-store.js';
import type { ManagedConfig } from './managed-config.js';

/** What the access routes use of the service. */
export interface AccessDeps {
  config: ConfigStore;
  managed: ManagedConfig;
  storage: Storage;
  now: () => number;
}

type OrgParams = { org: string };

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
const MAX_EMAIL = 254;

function invalid(field: string, problem: string): never {
  throw new ServiceError('invalid_request', `${field}: ${problem}`);
}

/**
 * An organization's admin with the `admin` role over the whole organization (a key narrowed to projects manages its
 * projects' items, not who may). The order of checks is authenticate()'s: 401 before anything about the organization.
 * @throws ServiceError `missing_credentials`, `invalid_credentials`, `admin_key_required`, `key_not_for_project`,
 * `role_forbidden`.
 */
function orgAdmin(request: FastifyRequest, store: ConfigStore, org: string, needed: Role = 'admin'): KeyEntry {
  const entry = verifiedAdminKey(request, store, 'Send an admin key as ?apiKey= or Authorization: Bearer.');
  if (entry.org !== org) throw new ServiceError('key_not_for_project', 'The key does not belong to this organization.');
  requireRole(entry, needed);
  if (needed === 'admin' && entry.projects != null) throw new ServiceError('role_forbidden', 'A key narrowed to projects cannot manage the organization\'s people and keys.');
  return entry;
}

function roleOf(value: unknown): Role {
  if (typeof value !== 'string' || !(ROLES as readonly string[]).includes(value)) invalid('role', `must be one of ${ROLES.join(', ')}`);
  return value as Role;
}

/** `projects`: absent or null (every project of the organization), or a non-empty list of its projects' names. */
function projectsOf(store: ConfigStore, org: string, value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.length === 0) invalid('projects', 'must be a non-empty list of project names, or left out for every project');
  const names = [...new Set(value.map((p, i) => {
    if (typeof p !== 'string' || store.project(org, p) === undefined) invalid(`projects[${i}]`, `the organization has no project ${quoted(String(p))}`);
    return p;
  }))];
  return names;
}

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) invalid('body', 'must be a JSON object');
  return body as Record<string, unknown>;
}

function emailOf(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > MAX_EMAIL || !EMAIL.test(email)) invalid('email', `${quoted(raw)} is not an email address`);
  return email;
}

/**
 * An organization's keys and people, for its admins (the file's admin keys, and keys made here with the admin role):
 * - `POST /v1/{org}/keys` `{name, role, projects?, expiresAt?}` → 201 with the key, shown this once;
 *   `GET /v1/{org}/keys` lists them without secrets; `DELETE /v1/{org}/keys/{id}` revokes one (on every node within a
 *   second: a revision every node polls);
 * - `GET /v1/{org}/people`, `PUT /v1/{org}/people/{email}` `{role, projects?}` (201 added, 200 changed),
 *   `DELETE /v1/{org}/people/{email}`.
 */
export function accessRoutes(app: FastifyInstance, ctx: AccessDeps): void {
  const admin = (request: FastifyRequest<{ Params: OrgParams }>): KeyEntry => orgAdmin(request, ctx.config, request.params.org);

  // Who the caller is and what it may do: the console shows only what its role allows (the service refuses the rest).
  app.get<{ Params: OrgParams }>('/v1/:org/me', async (request) => {
    const key = orgAdmin(request, ctx.config, request.params.org, 'viewer');
    return { actor: { type: 'key', id: key.id, name: key.name ?? key.id }, role: key.role ?? 'admin', projects: key.projects ?? null };
  });

  app.get<{ Params: OrgParams }>('/v1/:org/keys', async (request) => {
    admin(request);
    return { keys: await listKeys(ctx.storage, request.params.org) };
  });

  app.post<{ Params: OrgParams }>('/v1/:org/keys', async (request, reply) => {
    admin(request);
    const body = bodyOf(request);
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    if (name === '' || name.length > 64) invalid('name', 'must be a name of 1 to 64 characters');
    let expiresAt: number | null = null;
    if (body.expiresAt !== undefined && body.expiresAt !== null) {
      expiresAt = isoTime(body.expiresAt, { dateOnly: true });
      if (Number.isNaN(expiresAt)) invalid('expiresAt', 'must be an ISO 8601 date or date-time');
      if (expiresAt <= ctx.now()) invalid('expiresAt', 'must be in the future');
    }
    const role = roleOf(body.role);
    const projects = projectsOf(ctx.config, request.params.org, body.projects);
    const key = await createKey(ctx.storage, { org: request.params.org, name, role, projects, expiresAt, at: ctx.now() });
    // This node takes it at once; the others within a second.
    await ctx.managed.refresh();
    reply.code(201);
    return key;
  });

  app.delete<{ Params: OrgParams & { id: string } }>('/v1/:org/keys/:id', async (request, reply) => {
    admin(request);
    await revokeKey(ctx.storage, request.params.org, request.params.id, ctx.now());
    await ctx.managed.refresh();
    return reply.code(204).send();
  });

  app.get<{ Params: OrgParams }>('/v1/:org/people', async (request) => {
    admin(request);
    return { people: await listPeople(ctx.storage, request.params.org) };
  });

  app.put<{ Params: OrgParams & { email: string } }>('/v1/:org/people/:email', async (request, reply) => {
    admin(request);
    const body = bodyOf(request);
    const email = emailOf(request.params.email);
    const { person, created } = await putPerson(
      ctx.storage, request.params.org, email, roleOf(body.role), projectsOf(ctx.config, request.params.org, body.projects), ctx.now(),
    );
    reply.code(created ? 201 : 200);
    return person;
  });

  app.delete<{ Params: OrgParams & { email: string } }>('/v1/:org/people/:email', async (request, reply) => {
    admin(request);
    await deletePerson(ctx.storage, request.params.org, emailOf(request.params.email));
    return reply.code(204).send();
  });
}
