import type { FastifyReply, FastifyRequest } from 'fastify';
import * as client from 'openid-client';
import Type from 'typebox';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import { actorOf } from '../auth/management-caller.js';
import { cookieToken, type Sessions } from '../auth/sessions.js';
import { ROLES, type ConfigStore, type Role } from '../config/config-store.js';
import type { OidcConfig } from '../config/config-types.js';
import { ServiceError } from '../errors/service-error.js';
import type { Storage } from '../storage/storage.js';
import { FLOW_TTL_MS, startFlow, takeFlow } from './oidc-flows.js';
import { personCredentials, type PeopleWrites } from './credentials-store.js';
import { validEmail } from './person-input.js';

/** What single sign-on uses of the service. */
export interface OidcDeps {
  config: ConfigStore;
  storage: Storage;
  sessions: Sessions;
  /** The people's writes a sign-in makes (management's: the entry gives them). */
  people: PeopleWrites;
  now: () => number;
}

const FLOW_COOKIE = 'svc_oidc';
/** Over https, as the session cookie: a sibling subdomain can neither plant nor shadow a `__Host-` cookie. */
const SECURE_FLOW_COOKIE = `__Host-${FLOW_COOKIE}`;
const FLOW_PATH = '/admin/oidc/';
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

type SignInError = 'sso_no_access' | 'sso_failed' | 'sso_expired';

/** The console's address for an organization (and project), with a sign-in error to show when there is one. */
function consoleUrl(org: string | null, project: string | null, error?: SignInError): string {
  const query = new URLSearchParams();
  if (org !== null) query.set('organization', org);
  if (project !== null) query.set('project', project);
  if (error) query.set('signInError', error);
  const search = query.toString();
  return `/admin/${search === '' ? '' : `?${search}`}`;
}

// Over https (directly, or through a proxy Fastify trusts): the __Host- prefix, which requires Secure and Path=/. Over
// http (a laptop, tests) the prefix cannot be used: the plain name, sent to the sign-in's own routes only.
function flowCookie(request: FastifyRequest, value: string, maxAge: number): string {
  const attributes = `Max-Age=${maxAge}; HttpOnly; SameSite=Lax`;
  return request.protocol === 'https'
    ? `${SECURE_FLOW_COOKIE}=${value}; Path=/; ${attributes}; Secure`
    : `${FLOW_COOKIE}=${value}; Path=${FLOW_PATH}; ${attributes}`;
}

/** The flow's id from its cookie: over https only the `__Host-` one counts. */
const flowId = (request: FastifyRequest): string | null =>
  cookieToken(request, request.protocol === 'https' ? SECURE_FLOW_COOKIE : FLOW_COOKIE);

/**
 * The role a provider's claims give a person under `roleClaim`: the claim's value when it is a role; of a list (a
 * groups claim), the widest role in it; anything else, none.
 */
export function claimedRole(value: unknown): Role | null {
  const values = Array.isArray(value) ? value : [value];
  const roles = values.filter((v): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v));
  return roles.length === 0 ? null : roles.reduce((a, b) => (ROLES.indexOf(b) > ROLES.indexOf(a) ? b : a));
}

/**
 * Single sign-on to the console with an organization's OpenID Connect provider (openid-client: authorization code
 * flow with PKCE, state and nonce, the ID token's signature, issuer, audience and expiry checked):
 * - `GET /admin/oidc/start?organization=…&project=…` sends the browser to the provider;
 * - `GET /admin/oidc/callback` takes its answer, signs the person in (see OidcConfig for who gets in, with which role)
 *   and sends the browser to the console, or back to its sign-in with `signInError`.
 */
export function oidcRoutes(deps: OidcDeps): ApiRoute[] {
  // The provider's discovered metadata, per organization, fetched again when its settings change (a config reload).
  const providers = new Map<string, { settings: string; config: Promise<client.Configuration> }>();
  const provider = (org: string, oidc: OidcConfig): Promise<client.Configuration> => {
    const settings = JSON.stringify(oidc);
    const known = providers.get(org);
    if (known?.settings === settings) return known.config;
    const issuer = new URL(oidc.issuer);
    // Plain http only for a provider on this machine (tests); the config refuses it elsewhere.
    const options = issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : undefined;
    const config = client.discovery(issuer, oidc.clientId, oidc.clientSecret, undefined, options);
    providers.set(org, { settings, config });
    config.catch(() => providers.delete(org));
    return config;
  };
  const settingsOf = (org: string): OidcConfig | undefined =>
    Object.hasOwn(deps.config.config.organizations, org) ? deps.config.config.organizations[org]?.oidc : undefined;

  const redirect = (description: string) => ({ description, headers: { Location: 'Where the browser goes next.' } });
  const start = apiRoute<{ Querystring: { organization?: string; project?: string } }>({
    method: 'GET', path: '/admin/oidc/start', tag: 'Sessions', access: { kind: 'public' }, errors: ['sso_not_configured'],
    summary: 'Start single sign-on',
    description: 'Sends the browser to the organization\'s OpenID Connect provider (authorization code flow with PKCE).',
    request: {
      query: Type.Object({
        organization: Type.String({ description: 'The organization (one with `oidc` settings).' }),
        project: Type.Optional(Type.String({ description: 'The console\'s project to open after.' })),
      }),
    },
    answers: { 302: redirect('To the provider; or back to the console\'s sign-in with `signInError=sso_failed`.') },
    handler: async (request, reply) => {
      const org = request.query.organization ?? '';
      const project = typeof request.query.project === 'string' && NAME.test(request.query.project) ? request.query.project : null;
      const oidc = NAME.test(org) ? settingsOf(org) : undefined;
      if (!oidc) throw new ServiceError('sso_not_configured', 'This organization has no single sign-on.');
      let config: client.Configuration;
      try {
        config = await provider(org, oidc);
      } catch (error) {
        request.log.warn({ org, error: String(error) }, 'single sign-on: the provider\'s metadata could not be read');
        return reply.redirect(consoleUrl(org, project, 'sso_failed'));
      }
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const createdAt = deps.now();
      const id = await deps.storage.transaction(() => startFlow({ org, project, state, nonce, verifier, createdAt }));
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: oidc.redirectUri, scope: 'openid email profile', state, nonce,
        code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      });
      reply.header('set-cookie', flowCookie(request, id, FLOW_TTL_MS / 1000));
      return reply.redirect(url.href);
    },
  });

  const callback = apiRoute({
    method: 'GET', path: '/admin/oidc/callback', tag: 'Sessions', access: { kind: 'public' }, errors: [],
    summary: 'Single sign-on\'s return',
    description: 'Takes the provider\'s answer, signs the person in and sends the browser to the console, or back to its '
      + 'sign-in with `signInError` (`sso_no_access`, `sso_failed`, `sso_expired`).',
    request: { query: Type.Object({ code: Type.Optional(Type.String()), state: Type.Optional(Type.String()) }) },
    answers: { 302: redirect('To the console (signed in: the session cookie is set), or to its sign-in with `signInError`.') },
    handler: async (request, reply) => {
      const id = flowId(request);
      reply.header('set-cookie', flowCookie(request, '', 0));
      const flow = id === null ? null : await deps.storage.transaction(() => takeFlow(id));
      if (!flow || deps.now() - flow.createdAt > FLOW_TTL_MS) return reply.redirect(consoleUrl(flow?.org ?? null, flow?.project ?? null, 'sso_expired'));
      const back = (error?: SignInError): FastifyReply => reply.redirect(consoleUrl(flow.org, flow.project, error));
      const oidc = settingsOf(flow.org);
      if (!oidc) return back('sso_failed');
      let claims: Record<string, unknown>;
      try {
        const config = await provider(flow.org, oidc);
        // The answer's parameters, on the address the provider was told (the service may sit behind a proxy).
        const current = new URL(oidc.redirectUri);
        current.search = new URL(request.url, 'http://callback').search;
        const tokens = await client.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce, idTokenExpected: true,
        });
        claims = { ...tokens.claims() };
        const wanted = oidc.roleClaim;
        if (typeof claims.email !== 'string' || (wanted !== undefined && claims[wanted] === undefined)) {
          claims = { ...(await client.fetchUserInfo(config, tokens.access_token, String(claims.sub))), ...claims };
        }
      } catch (error) {
        request.log.warn({ org: flow.org, error: String(error) }, 'single sign-on: the provider\'s answer was refused');
        return back('sso_failed');
      }
      // The email names the person signed in as, so the provider must say it checked who holds it: only a boolean true
      // counts (a claim left out, or "false" as a string, is no such word). The address is one the people API would take,
      // so the provider can add no one the organization's admins could not see or remove.
      const email = claims.email_verified === true ? validEmail(claims.email) : null;
      if (email === null) return back('sso_no_access');
      if (oidc.roleClaim !== undefined) {
        const role = claimedRole(claims[oidc.roleClaim]);
        if (role === null) return back('sso_no_access');
        const actor = actorOf(request, { kind: 'adminKey', id: email, key: '', org: flow.org, project: null, role, name: email, person: true });
        await deps.storage.transaction(() => deps.people.upsertProvidedPerson(flow.org, email, role, deps.now(), actor));
      } else if (!(await deps.storage.run(() => personCredentials(flow.org, email))).exists) {
        return back('sso_no_access');
      }
      await deps.sessions.start(request, reply, flow.org, 'person', email);
      return back();
    },
  });
  return [start, callback];
}
