import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ServiceError } from '../errors/service-error.js';
import { projectEndpoint, type ProjectParams } from '../http/project-endpoint.js';
import { CATALOG_BODY_LIMIT, productsFromArray, productsFromNdjson } from './catalog-body.js';
import { patchProducts, upsertProducts } from './catalog-store.js';
import { validateCatalogPatch } from './validate-catalog-patch.js';
import type { ConfigStore } from '../config/config-store.js';
import type { Storage } from '../storage/storage.js';

type RawRequest = IncomingMessage;

export const CATALOG_PATH = '/v1/:org/projects/:project/catalog';

/** What the catalog route uses of the service. */
export interface CatalogRouteDeps {
  config: ConfigStore;
  storage: Storage;
}

/**
 * `PUT /v1/{org}/projects/{project}/catalog?apiKey=…` (issue 6): upserts up to 100,000 products, sent as a
 * JSON array or an `application/x-ndjson` stream, validated per item (400 `invalid_product` naming the index),
 * stored in one transaction; answers `{upserted}` (distinct ids written).
 *
 * apiKey only, checked before the body is read: a writeKey ships in every page, so a visitor could otherwise
 * rewrite prices. `PATCH` (same path, JSON array) sets `available`, `inventory` or `price` of stored products, as a shop's
 * stock webhook calls it: `{updated, notFound}`, an id the catalog does not hold being reported, not refused (a webhook
 * that got a 4xx for a product not uploaded yet would retry it for days). The PUT route is registered in its own encapsulated scope, so its 64 MiB body limit and NDJSON
 * parser apply to it alone (every other route keeps 1 MiB).
 */
export async function catalogRoute(app: FastifyInstance, ctx: CatalogRouteDeps): Promise<void> {
  const apiKeyOnly = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (request.auth?.kind !== 'apiKey') {
      done(new ServiceError('invalid_credentials', 'The catalog API takes an apiKey (?apiKey=); a writeKey may not change the catalog.'));
      return;
    }
    done();
  };
  // Called once a route: each gets hooks of its own (projectEndpoint makes its rate limiter per call).
  const routeOptions = () => ({
    bodyLimit: CATALOG_BODY_LIMIT,
    onRequest: [projectEndpoint(app, ctx.config, { allowApiKey: true }), apiKeyOnly],
  });

  await app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-ndjson',
      (_request: FastifyRequest, payload: RawRequest) => productsFromNdjson(payload, CATALOG_BODY_LIMIT),
    );
    scope.put<{ Params: ProjectParams }>(CATALOG_PATH, routeOptions(), async (request) => {
      const products = productsFromArray(request.body);
      const upserted = await upsertProducts(ctx.storage, projectKey(request), products);
      return { upserted };
    });
  });

  // Outside the PUT's scope: a partial update is a JSON array only (the NDJSON parser reads whole products).
  app.patch<{ Params: ProjectParams }>(CATALOG_PATH, routeOptions(), async (request) =>
    patchProducts(ctx.storage, projectKey(request), validateCatalogPatch(request.body)));
}

/** The project the apiKey of `request` is for (set by the route's onRequest hooks). */
function projectKey(request: FastifyRequest): string {
  const project = request.auth?.project;
  if (!project) throw new ServiceError('missing_credentials', 'Send an apiKey query parameter.');
  return project.key;
}
