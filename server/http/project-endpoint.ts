import type { FastifyRequest, preParsingAsyncHookHandler } from 'fastify';
import { authenticate, type AuthOptions } from '../auth/authenticate.js';
import type { ConfigStore } from '../config/config-store.js';
import { ServiceError } from '../errors/service-error.js';
import { originAllowed } from './cors.js';

export interface ProjectParams {
  org: string;
  project: string;
  sourceId?: string;
}

/**
 * The preParsing hook of an endpoint under `/v1/{org}/projects/{project}`: it authenticates before the
 * body is read (an unauthenticated caller cannot make us parse 1 MiB) and, for browser callers, enforces
 * the project's origin allow-list (write keys are public, so the allow-list is what binds a key to a site).
 * The result is on `request.auth`.
 * @example app.post(path, { preParsing: projectAuth(store, { allowApiKey: true }) }, handler)
 */
export function projectAuth(store: ConfigStore, options: Pick<AuthOptions, 'allowApiKey'>): preParsingAsyncHookHandler {
  return async function projectAuthHook(request: FastifyRequest) {
    const params = request.params as ProjectParams;
    const auth = authenticate(request, store, params.org, params.project, {
      allowApiKey: options.allowApiKey,
      ...(params.sourceId !== undefined ? { sourceId: params.sourceId } : {}),
    });
    const origin = request.headers.origin;
    if (auth.kind === 'writeKey' && typeof origin === 'string' && !originAllowed(store, request.url, origin)) {
      throw new ServiceError('origin_not_allowed', `The origin ${origin.slice(0, 200)} may not call this project.`);
    }
    request.auth = auth;
  };
}
