import type { FastifyInstance, onRequestHookHandler, RouteOptions } from 'fastify';
import type { ConfigStore } from '../config/config-store.js';
import type { Access, ApiRoute } from './api-route.js';
import type { EmptyBodyConfig } from './body-parsers.js';
import { keyEndpoint } from './key-endpoint.js';
import { projectEndpoint } from './project-endpoint.js';

/**
 * The onRequest hook a project route's access asks for: projectEndpoint with the options its keys and role mean, or
 * keyEndpoint for a route whose project is the key's.
 */
function accessHook(app: FastifyInstance, store: ConfigStore, access: Access): onRequestHookHandler | null {
  if (access.kind === 'keyProject') return keyEndpoint(app, store, access.keys);
  if (access.kind !== 'project') return null;
  const keys = new Set(access.keys);
  const role = access.role !== undefined ? { role: access.role } : {};
  // Only the organization's admin keys (and the console's session): any other valid key is `admin_key_required`.
  if (keys.size === 1 && keys.has('adminKey')) return projectEndpoint(app, store, { allowApiKey: false, adminOnly: true, ...role });
  return projectEndpoint(app, store, {
    allowApiKey: keys.has('apiKey'),
    ...(keys.has('adminKey') ? { allowAdminKey: true } : {}),
    ...role,
  });
}

/** A route's `config`: left out of the rate limits when `unlimited`; an empty body taken as none when it needs none. */
function routeConfig(route: ApiRoute): (EmptyBodyConfig & { rateLimit?: false }) | undefined {
  const request = route.request;
  const bodiless = request?.bodyOptional === true || (request?.json === undefined && request?.media === undefined);
  if (!route.unlimited && !bodiless) return undefined;
  return { ...(route.unlimited ? { rateLimit: false as const } : {}), ...(bodiless ? { emptyBody: true as const } : {}) };
}

/**
 * Registers the API's routes, each the same way: its access hook (a new one per route, as each route had before: the
 * rate limit's buckets are shared by the store), its own hooks after it, its body limit, its config (routeConfig), its
 * error handler for the failures it answers in its own shape, and its body parsers in a scope of its own. No schema is
 * given to Fastify: requests are checked by the domains' code and answers are sent as
 * built (see ApiRoute).
 */
export async function registerApiRoutes(app: FastifyInstance, store: ConfigStore, routes: readonly ApiRoute[]): Promise<void> {
  for (const route of routes) {
    const access = accessHook(app, store, route.access);
    const hooks = [...(access ? [access] : []), ...(route.onRequest ?? [])];
    const config = routeConfig(route);
    const options: RouteOptions = {
      method: route.method,
      url: route.path,
      handler: route.handler,
      ...(hooks.length === 1 ? { onRequest: hooks[0] } : hooks.length > 1 ? { onRequest: hooks } : {}),
      ...(route.bodyLimit !== undefined ? { bodyLimit: route.bodyLimit } : {}),
      ...(config !== undefined ? { config } : {}),
      ...(route.ownErrors ? { errorHandler: route.ownErrors.handler } : {}),
    };
    const parsers = route.parsers;
    if (parsers === undefined) {
      app.route(options);
      continue;
    }
    await app.register(async (scope) => {
      for (const [type, parser] of Object.entries(parsers)) scope.addContentTypeParser(type, parser);
      scope.route(options);
    });
  }
}
