import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { authenticate, type AuthOptions, type AuthResult } from '../auth/authenticate.js';
import { sendsKey } from '../auth/management-caller.js';
import { sessionToken } from '../auth/sessions.js';
import type { ConfigStore } from '../config/config-store.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { originAllowed } from './cors.js';
import { projectRateLimiter } from './rate-limit.js';

export interface ProjectParams {
  org: string;
  project: string;
  sourceId?: string;
}

/**
 * The onRequest hook of an endpoint under `/v1/{org}/projects/{project}`: the project's rate limit
 * (projectRateLimiter; first, so guessing write keys is throttled too), then authentication, before the body is read
 * (an unauthenticated caller cannot make us parse 1 MiB), and for browser callers the project's origin
 * allow-list (write keys are public, so the allow-list is what binds a key to a site). The result is on
 * `request.auth`. One callback hook does both, in order.
 * @example app.post(path, { onRequest: projectEndpoint(app, store, { allowApiKey: true }) }, handler)
 */
export function projectEndpoint(
  app: FastifyInstance, store: ConfigStore, options: Pick<AuthOptions, 'allowApiKey' | 'allowAdminKey' | 'adminOnly' | 'role'>,
): (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  const limit = projectRateLimiter(app, store);
  const admit = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    try {
      request.auth = projectAuth(request, store, options);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
  // The console's requests carry a session cookie instead of a key: the session is read first (from the database).
  const consoleAllowed = options.adminOnly === true || options.allowAdminKey === true;
  const admitSession = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    app.svc.sessions.caller(request, reply).then((session) => {
      request.session = session ?? undefined;
      admit(request, reply, done);
    }, done);
  };
  return (request, reply, done) => {
    const next = consoleAllowed && sessionToken(request) !== null && !sendsKey(request) ? admitSession : admit;
    const limiting = limit(request, reply);
    if (limiting === null) next(request, reply, done);
    else limiting.then(() => next(request, reply, done), done);
  };
}

/** Authenticates the request for the project in its path; browser callers' origin must be allowed. */
function projectAuth(
  request: FastifyRequest, store: ConfigStore, options: Pick<AuthOptions, 'allowApiKey' | 'allowAdminKey' | 'adminOnly' | 'role'>,
): AuthResult {
  const params = request.params as ProjectParams;
  const auth = authenticate(request, store, params.org, params.project, {
    allowApiKey: options.allowApiKey,
    ...(request.session ? { caller: request.session.entry } : {}),
    ...(options.allowAdminKey ? { allowAdminKey: true } : {}),
    ...(options.adminOnly ? { adminOnly: true } : {}),
    ...(options.role !== undefined ? { role: options.role } : {}),
    ...(params.sourceId !== undefined ? { sourceId: params.sourceId } : {}),
  });
  const origin = request.headers.origin;
  if (auth.kind === 'writeKey' && typeof origin === 'string' && !originAllowed(store, request.url, origin)) {
    throw new ServiceError('origin_not_allowed', `The origin ${quoted(origin)} may not call this project.`);
  }
  return auth;
}
