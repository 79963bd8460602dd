import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AcceptInvitationBody, InvitationLookupAnswer, InvitationTokenBody, MeAnswer, PasswordBody, SessionBody, SignInAnswer,
} from '../../wire/api/access-schema.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import { managementCaller, sendsKey } from '../auth/management-caller.js';
import { verifiedAdminKey } from '../auth/authenticate.js';
import type { ConfigStore, KeyEntry } from '../config/config-store.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import type { Storage } from '../storage/storage.js';
import { findInvitation, INVITATION_TOKEN, takeInvitation } from './invitations.js';
import { checkNewPassword, hashPassword, verifyPassword } from './passwords.js';
import { bodyOf, emailOf, invalid } from './person-input.js';
import { personCredentials, type PeopleWrites } from './credentials-store.js';
import { checkSameOrigin, type SessionCaller, type Sessions } from '../auth/sessions.js';
import type { SignInAttempt, SignInLimiter } from './sign-in-limiter.js';

/** What the sign-in routes use of the service. */
export interface SessionDeps {
  config: ConfigStore;
  storage: Storage;
  sessions: Sessions;
  limiter: SignInLimiter;
  /** The people's writes a password makes (management's: the entry gives them). */
  people: PeopleWrites;
  now: () => number;
}

type OrgParams = { org: string };

const MISSING = 'Sign in to the console, or send an admin key as ?apiKey= or Authorization: Bearer.';

/** `GET /v1/{org}/me` and what every sign-in answers: who the caller is, what it may do, and its session. */
export function meAnswer(entry: KeyEntry, session?: SessionCaller): Record<string, unknown> {
  const answer: Record<string, unknown> = {
    actor: session?.actor ?? { type: 'key', id: entry.id, name: entry.name ?? entry.id },
    role: entry.role ?? 'admin',
    projects: entry.projects ?? null,
  };
  if (session) {
    answer.csrfToken = session.csrfToken;
    answer.expiresAt = new Date(session.expiresAt).toISOString();
    if (session.actor.type === 'person') answer.password = session.hasPassword;
  }
  return answer;
}

/** The organization's caller (a key or a session), of this organization. */
export async function orgCaller(
  request: FastifyRequest<{ Params: OrgParams }>, reply: FastifyReply, deps: Pick<SessionDeps, 'config' | 'sessions'>,
): Promise<KeyEntry> {
  const entry = await managementCaller(request, reply, deps.config, deps.sessions, MISSING);
  if (entry.org !== request.params.org) throw new ServiceError('key_not_for_project', 'The key does not belong to this organization.');
  return entry;
}

function hasOrganization(config: ConfigStore, org: string): boolean {
  return Object.hasOwn(config.config.organizations, org);
}

/**
 * Signing in to the console and out of it, for an organization's people (email and password) and keys:
 * - `GET /v1/{org}/sign-in`: how one signs in there (`{organization, password, sso}`);
 * - `POST /v1/{org}/session` `{email, password}` (or an admin key as Bearer and `{}`) → the session cookie and `me`;
 *   failures are counted per account and client IP (429 past the limit);
 * - `GET /v1/{org}/me`; `DELETE /v1/{org}/session` (this browser) and `DELETE /v1/{org}/sessions` (everywhere);
 * - `PUT /v1/{org}/me/password` `{currentPassword, password}`: the person's other sessions end;
 * - `POST /v1/{org}/invitations/lookup` `{token}`: who an invitation is for (`{email, expiresAt}`), leaving it unused;
 * - `POST /v1/{org}/invitations/accept` `{token, password}`: sets the invited person's password and signs them in.
 * Both invitation routes count their tries per address as sign-ins do: a link that finds nobody is a failed guess.
 */
export function sessionRoutes(deps: SessionDeps): ApiRoute[] {
  const tag = 'Sessions';
  const session = { 'Set-Cookie': 'The session cookie (HttpOnly, SameSite=Lax; `__Host-` and Secure over https).' };
  return [apiRoute<{ Params: OrgParams }>({
    method: 'GET', path: '/v1/:org/sign-in', tag, access: { kind: 'public' }, errors: ['organization_not_found'],
    summary: 'How one signs in to an organization',
    answers: { 200: { description: 'The ways to sign in.', json: SignInAnswer } },
    handler: async (request) => {
      const org = request.params.org;
      if (!hasOrganization(deps.config, org)) throw new ServiceError('organization_not_found', `There is no organization ${quoted(org)}.`);
      return { organization: org, password: true, sso: deps.config.config.organizations[org]?.oidc !== undefined };
    },
  }),

  apiRoute<{ Params: OrgParams }>({
    method: 'POST', path: '/v1/:org/session', tag, access: { kind: 'public' },
    errors: ['invalid_request', 'invalid_credentials', 'csrf_failed', 'admin_key_required', 'key_not_for_project', 'rate_limited'],
    summary: 'Sign in to the console',
    description: 'A person with their email and password (failures are counted per account and address: 429 past the limit), '
      + 'or an admin key sent as Bearer with `{}`. Any session cookie sent before is ended.',
    request: { json: SessionBody },
    answers: { 200: { description: 'Signed in: the session cookie, and who the caller is.', json: MeAnswer, headers: session } },
    handler: async (request, reply) => {
      const org = request.params.org;
      checkSameOrigin(request);
      if (sendsKey(request)) {
        const entry = verifiedAdminKey(request, deps.config, MISSING);
        if (entry.org !== org) throw new ServiceError('key_not_for_project', 'The key does not belong to this organization.');
        return meAnswer(entry, await deps.sessions.start(request, reply, org, 'key', entry.id));
      }
      const body = bodyOf(request.body);
      const email = emailOf(body.email);
      if (typeof body.password !== 'string' || body.password === '') invalid('password', 'is required');
      const attempt = beginAttempt(deps.limiter, `${org}\u0000${email}`, request, reply);
      try {
        const stored = hasOrganization(deps.config, org) ? await deps.storage.run(() => personCredentials(org, email)) : { hash: null };
        // An unknown email or organization is hashed against too: the answer takes as long, and says the same.
        if (!(await verifyPassword(body.password, stored.hash))) throw new ServiceError('invalid_credentials', 'The email or password is wrong.');
        attempt.succeeded();
      } finally {
        attempt.end();
      }
      const session = await deps.sessions.start(request, reply, org, 'person', email);
      return meAnswer(session.entry, session);
    },
  }),

  apiRoute<{ Params: OrgParams }>({
    method: 'GET', path: '/v1/:org/me', tag, access: { kind: 'organization' }, errors: [],
    summary: 'Who the caller is',
    description: 'Its role and projects; with a session, its CSRF token and end.',
    answers: { 200: { description: 'The caller.', json: MeAnswer } },
    handler: async (request, reply) => {
        const entry = await orgCaller(request, reply, deps);
        return meAnswer(entry, request.session);
      },
    }),

    apiRoute<{ Params: OrgParams }>({
      method: 'DELETE', path: '/v1/:org/session', tag, access: { kind: 'organization' }, errors: [],
      summary: 'Sign out (this browser)',
      answers: { 204: { description: 'Signed out; the cookie is cleared.' } },
      handler: async (request, reply) => {
        await orgCaller(request, reply, deps);
        if (request.session) await deps.sessions.end(request, reply, request.session);
        return reply.code(204).send();
      },
    }),

    apiRoute<{ Params: OrgParams }>({
      method: 'DELETE', path: '/v1/:org/sessions', tag, access: { kind: 'organization' }, errors: [],
      summary: 'Sign out everywhere',
      description: 'Every session of the caller (the person, or the key) ends.',
      answers: { 204: { description: 'Signed out everywhere.' } },
      handler: async (request, reply) => {
        const entry = await orgCaller(request, reply, deps);
        await deps.sessions.endAll(entry.org, entry.person ? 'person' : 'key', entry.id);
        deps.sessions.clearCookie(request, reply);
        return reply.code(204).send();
      },
    }),

    apiRoute<{ Params: OrgParams }>({
      method: 'PUT', path: '/v1/:org/me/password', tag, access: { kind: 'organization', sessionOnly: true },
      errors: ['invalid_request', 'wrong_password', 'rate_limited'],
      summary: 'Change one\'s password',
      description: 'A person signed in to the console; their other sessions end.',
      request: { json: PasswordBody },
      answers: { 204: { description: 'Changed.' } },
      handler: async (request, reply) => {
      const entry = await orgCaller(request, reply, deps);
      const session = request.session;
      if (!entry.person || !session) throw new ServiceError('invalid_request', 'Only a person signed in to the console has a password to change.');
      const body = bodyOf(request.body);
      const password = checkNewPassword(body.password, entry.id);
      const attempt = beginAttempt(deps.limiter, `${entry.org}\u0000${entry.id}`, request, reply);
      try {
        const stored = await deps.storage.run(() => personCredentials(entry.org, entry.id));
        const current = typeof body.currentPassword === 'string' ? body.currentPassword : '';
        if (!(await verifyPassword(current, stored.hash))) throw new ServiceError('wrong_password', 'The current password is wrong.');
        attempt.succeeded();
      } finally {
        attempt.end();
      }
      const hash = await hashPassword(password);
      await deps.storage.transaction(() => deps.people.setPasswordHash(entry.org, entry.id, hash, deps.now()));
      await deps.sessions.endAll(entry.org, 'person', entry.id, session.id);
      return reply.code(204).send();
    },
  }),

  apiRoute<{ Params: OrgParams }>({
    method: 'POST', path: '/v1/:org/invitations/lookup', tag, access: { kind: 'public' },
    errors: ['invalid_request', 'invalid_invitation', 'csrf_failed', 'rate_limited'],
    summary: 'Who an invitation is for',
    description: 'Leaves it unused. Tries are counted per address as sign-ins are.',
    request: { json: InvitationTokenBody },
    answers: { 200: { description: 'The invited person.', json: InvitationLookupAnswer } },
    handler: async (request, reply) => {
      const org = request.params.org;
      checkSameOrigin(request);
      const token = tokenOf(request.body);
      const attempt = beginAttempt(deps.limiter, invitationTries(org, request), request, reply);
      try {
        const found = await deps.storage.run(() => findInvitation(org, token, deps.now()));
        if (found === null) throw invalidInvitation();
        attempt.undo();
        return { email: found.email, expiresAt: new Date(found.expiresAt).toISOString() };
      } finally {
        attempt.end();
      }
    },
  }),

  apiRoute<{ Params: OrgParams }>({
    method: 'POST', path: '/v1/:org/invitations/accept', tag, access: { kind: 'public' },
    errors: ['invalid_request', 'invalid_invitation', 'csrf_failed', 'rate_limited'],
    summary: 'Accept an invitation',
    description: 'Sets the invited person\'s password and signs them in; any session they had ends.',
    request: { json: AcceptInvitationBody },
    answers: { 200: { description: 'Signed in.', json: MeAnswer, headers: session } },
    handler: async (request, reply) => {
      const org = request.params.org;
      checkSameOrigin(request);
      const body = bodyOf(request.body);
      const token = tokenOf(body);
      const password = checkNewPassword(body.password);
      const attempt = beginAttempt(deps.limiter, invitationTries(org, request), request, reply);
      let email: string | null;
      try {
        const hash = await hashPassword(password);
        const now = deps.now();
        const { people } = deps;
        email = await deps.storage.transaction(function* () {
          const invited = yield* takeInvitation(org, token, now);
          if (invited !== null) yield* people.setPasswordHash(org, invited, hash, now);
          return invited;
        });
        if (email === null) throw invalidInvitation();
        attempt.undo();
      } finally {
        attempt.end();
      }
      // A password set from an invitation ends any session the person had (a reset by an admin's new invitation).
      await deps.sessions.endAll(org, 'person', email);
      const session = await deps.sessions.start(request, reply, org, 'person', email);
      return meAnswer(session.entry, session);
    },
  })];
}

/** What the limiter counts invitation tries by: an address's, per organization (a token names no account). */
const invitationTries = (org: string, request: FastifyRequest): string => `${org}\u0000invitation\u0000${request.ip}`;

/** The body's invitation token, of the right shape. */
function tokenOf(value: unknown): string {
  const body = bodyOf(value);
  if (typeof body.token !== 'string' || !INVITATION_TOKEN.test(body.token)) throw invalidInvitation();
  return body.token;
}

function invalidInvitation(): ServiceError {
  return new ServiceError('invalid_invitation', 'This invitation link is not valid: it was used, replaced or has expired. Ask an admin for a new one.');
}

/**
 * A try of `account` from the request's address, counted as failed before its password is hashed (see SignInLimiter).
 * @throws ServiceError `rate_limited` (with Retry-After) while the account or address has failed too often, or has
 * too many tries under way.
 */
function beginAttempt(limiter: SignInLimiter, account: string, request: FastifyRequest, reply: FastifyReply): SignInAttempt {
  const attempt = limiter.begin(account, request.ip);
  if (!('retryAfter' in attempt)) return attempt;
  const wait = attempt.retryAfter;
  reply.header('retry-after', String(wait));
  const when = wait < 60 ? `${wait} second(s)` : `${Math.ceil(wait / 60)} minute(s)`;
  throw new ServiceError('rate_limited', `Too many sign-in attempts; try again in ${when}.`);
}
