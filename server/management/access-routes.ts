import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import {
  AccessKeySchema, CreatedKeySchema, InvitationAnswer, InvitationBody, NewKeyBody, PersonBody, PersonSchema,
} from '../../wire/api/access-schema.js';
import { AuditAnswer, AuditQuery } from '../../wire/api/item-schema.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import { requireRole } from '../auth/authenticate.js';
import { ROLES, type ConfigStore, type KeyEntry, type Role } from '../config/config-store.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { isoTime } from '../http/iso-time.js';
import { createInvitation, DEFAULT_INVITATION_HOURS, invitationPath } from '../sessions/invitations.js';
import { bodyOf as objectOf, emailOf, invalid } from '../sessions/person-input.js';
import { orgCaller } from '../sessions/session-routes.js';
import type { Sessions } from '../auth/sessions.js';
import type { Storage } from '../storage/storage.js';
import { actorOf } from '../auth/management-caller.js';
import { listLimit } from '../http/list-limit.js';
import { auditFilter, AUDIT_LIMIT } from './audit-filter.js';
import { recordAccessAudit } from './access-audit.js';
import { readAudit } from './managed-item-store.js';
import { createKey, deletePerson, listKeys, listPeople, putPerson, revokeKey } from './access-store.js';
import type { ManagedConfig } from './managed-config.js';

/** What the access routes use of the service. */
export interface AccessDeps {
  config: ConfigStore;
  managed: ManagedConfig;
  storage: Storage;
  sessions: Sessions;
  now: () => number;
}

type OrgParams = { org: string };

const ACCESS_KINDS = ['person', 'key'];

/**
 * An organization's admin with the `admin` role over the whole organization (a key or person narrowed to projects
 * manages its projects' items, not who may): a key, or a person or key signed in to the console. The order of checks
 * is authenticate()'s: 401 before anything about the organization.
 * @throws ServiceError `missing_credentials`, `invalid_credentials`, `session_expired`, `csrf_failed`,
 * `admin_key_required`, `key_not_for_project`, `role_forbidden`.
 */
async function orgAdmin(request: FastifyRequest<{ Params: OrgParams }>, reply: FastifyReply, ctx: AccessDeps): Promise<KeyEntry> {
  const entry = await orgCaller(request, reply, ctx);
  requireRole(entry, 'admin');
  if (entry.projects != null) throw new ServiceError('role_forbidden', 'Access narrowed to projects cannot manage the organization\'s people and keys.');
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

/** A project of the organization named in the query, or null when none is named. */
function projectOf(store: ConfigStore, org: string, value: unknown): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || store.project(org, value) === undefined) invalid('project', `the organization has no project ${quoted(String(value))}`);
  return value;
}

const bodyOf = (request: FastifyRequest): Record<string, unknown> => objectOf(request.body);

const ADMIN = { kind: 'organization', role: 'admin' } as const;
const EMAIL = { email: { description: 'The person\'s email (any case: one address however typed).' } };

/**
 * An organization's keys and people, for its admins (the file's admin keys, and keys made here with the admin role):
 * - `POST /v1/{org}/keys` `{name, role, projects?, expiresAt?}` → 201 with the key, shown this once;
 *   `GET /v1/{org}/keys` lists them without secrets; `DELETE /v1/{org}/keys/{id}` revokes one (on every node within a
 *   second: a revision every node polls);
 * - `GET /v1/{org}/people`, `PUT /v1/{org}/people/{email}` `{role, projects?}` (201 added, 200 changed),
 *   `DELETE /v1/{org}/people/{email}`.
 * Each checks its caller in the handler (orgAdmin), after the body is read.
 */
export function accessRoutes(ctx: AccessDeps): ApiRoute[] {
  const admin = (request: FastifyRequest<{ Params: OrgParams }>, reply: FastifyReply): Promise<KeyEntry> => orgAdmin(request, reply, ctx);
  const tag = 'Team access';
  return [
    apiRoute<{ Params: OrgParams }>({
      method: 'GET', path: '/v1/:org/keys', tag, access: ADMIN, errors: [],
      summary: 'List the admin keys made through the API',
      answers: { 200: { description: 'The keys, without secrets.', json: Type.Object({ keys: Type.Array(AccessKeySchema) }) } },
      handler: async (request, reply) => {
        await admin(request, reply);
        return { keys: await listKeys(ctx.storage, request.params.org) };
      },
    }),
    apiRoute<{ Params: OrgParams }>({
      method: 'POST', path: '/v1/:org/keys', tag, access: ADMIN, errors: ['invalid_request'],
      summary: 'Make an admin key',
      request: { json: NewKeyBody },
      answers: { 201: { description: 'The key, with its secret shown this once.', json: CreatedKeySchema } },
      handler: async (request, reply) => {
        const caller = await admin(request, reply);
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
        const key = await createKey(ctx.storage, { org: request.params.org, name, role, projects, expiresAt, at: ctx.now() }, actorOf(request, caller));
        // This node takes it at once; the others within a second.
        await ctx.managed.refresh();
        reply.code(201);
        return key;
      },
    }),
    apiRoute<{ Params: OrgParams & { id: string } }>({
      method: 'DELETE', path: '/v1/:org/keys/:id', tag, access: ADMIN, errors: ['key_not_found'],
      summary: 'Revoke an admin key',
      description: 'Refused by every node within a second.',
      request: { params: { id: { description: 'The key\'s id.' } } },
      answers: { 204: { description: 'Revoked.' } },
      handler: async (request, reply) => {
        const caller = await admin(request, reply);
        await revokeKey(ctx.storage, request.params.org, request.params.id, ctx.now(), actorOf(request, caller));
        await ctx.managed.refresh();
        return reply.code(204).send();
      },
    }),
    // The organization's own audit log: who gave whom which role, made or revoked which key, invited whom.
    apiRoute<{ Params: OrgParams; Querystring: Record<string, string | undefined> }>({
      method: 'GET', path: '/v1/:org/audit', tag, access: ADMIN, errors: ['invalid_request'],
      summary: 'The organization\'s audit log',
      description: 'Who gave whom which role, made or revoked which key, invited whom; newest first.',
      request: { query: AuditQuery },
      answers: { 200: { description: 'The entries.', json: AuditAnswer } },
      handler: async (request, reply) => {
        await admin(request, reply);
        const filter = auditFilter(request.query, ACCESS_KINDS);
        return { entries: await readAudit(ctx.storage, request.params.org, listLimit(request.query.limit, AUDIT_LIMIT), filter) };
      },
    }),
    apiRoute<{ Params: OrgParams }>({
      method: 'GET', path: '/v1/:org/people', tag, access: ADMIN, errors: [],
      summary: 'List the organization\'s people',
      answers: { 200: { description: 'The people.', json: Type.Object({ people: Type.Array(PersonSchema) }) } },
      handler: async (request, reply) => {
        await admin(request, reply);
        return { people: await listPeople(ctx.storage, request.params.org, ctx.now()) };
      },
    }),
    apiRoute<{ Params: OrgParams & { email: string } }>({
      method: 'PUT', path: '/v1/:org/people/:email', tag, access: ADMIN, errors: ['invalid_request'],
      summary: 'Add a person or change their role',
      request: { json: PersonBody, params: EMAIL },
      answers: { 200: { description: 'Changed.', json: PersonSchema }, 201: { description: 'Added.', json: PersonSchema } },
      handler: async (request, reply) => {
        const caller = await admin(request, reply);
        const body = bodyOf(request);
        const email = emailOf(request.params.email);
        const { person, created } = await putPerson(
          ctx.storage, request.params.org, email, roleOf(body.role), projectsOf(ctx.config, request.params.org, body.projects), ctx.now(),
          actorOf(request, caller),
        );
        reply.code(created ? 201 : 200);
        return person;
      },
    }),
    apiRoute<{ Params: OrgParams & { email: string } }>({
      method: 'DELETE', path: '/v1/:org/people/:email', tag, access: ADMIN, errors: ['invalid_request', 'person_not_found'],
      summary: 'Remove a person',
      description: 'Their sessions end.',
      request: { params: EMAIL },
      answers: { 204: { description: 'Removed.' } },
      handler: async (request, reply) => {
        const caller = await admin(request, reply);
        const email = emailOf(request.params.email);
        await deletePerson(ctx.storage, request.params.org, email, ctx.now(), actorOf(request, caller));
        // Their sessions would be refused at the next request anyway (no person behind them): this clears them away.
        await ctx.sessions.endAll(request.params.org, 'person', email);
        return reply.code(204).send();
      },
    }),
    // An invitation link for a person already added: they set their password with it (also a reset, by an admin).
    apiRoute<{ Params: OrgParams & { email: string }; Querystring: { project?: unknown } }>({
      method: 'POST', path: '/v1/:org/people/:email/invitation', tag, access: ADMIN, errors: ['invalid_request', 'person_not_found'],
      summary: 'Make an invitation link',
      description: 'For a person already added: they set their password with it (also a reset). A newer link replaces the older.',
      request: {
        json: InvitationBody, bodyOptional: true, params: EMAIL,
        query: Type.Object({ project: Type.Optional(Type.String({ description: 'The project the link opens, when the person has no first project.' })) }),
      },
      answers: { 201: { description: 'The link.', json: InvitationAnswer } },
      handler: async (request, reply) => {
        const caller = await admin(request, reply);
        const org = request.params.org;
        const email = emailOf(request.params.email);
        const body = request.body === undefined ? {} : bodyOf(request);
        const hours = body.expiresInHours ?? DEFAULT_INVITATION_HOURS;
        if (typeof hours !== 'number' || !Number.isFinite(hours) || hours <= 0 || hours > 24 * 30) invalid('expiresInHours', 'must be a number of hours up to 720');
        const at = ctx.now();
        const expiresAt = at + Math.round(hours * 3600_000);
        const actor = actorOf(request, caller);
        const made = await ctx.storage.transaction(function* () {
          const invitation = yield* createInvitation(org, email, at, expiresAt);
          const after = { expiresAt: new Date(expiresAt).toISOString() };
          if (invitation !== null) yield* recordAccessAudit({ org, at, actor, action: 'invite', kind: 'person', name: email, before: null, after });
          return invitation;
        });
        if (made === null) throw new ServiceError('person_not_found', `The organization has no person ${quoted(email)}: add them first.`);
        reply.code(201);
        // The link opens the person's own first project, else the one the admin is working on.
        const project = made.firstProject ?? projectOf(ctx.config, org, request.query.project);
        return { email, url: invitationPath(org, made.token, project), expiresAt: new Date(expiresAt).toISOString() };
      },
    }),
  ];
}
