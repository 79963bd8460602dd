import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import Type from 'typebox';
import { CatalogPatch, CatalogPatchAnswer, CatalogProduct } from '../../wire/api/feed-schema.js';
import { ServiceError } from '../errors/service-error.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import type { ProjectParams } from '../http/project-endpoint.js';
import { CATALOG_BODY_LIMIT, productsFromArray, productsFromNdjson } from './catalog-body.js';
import { patchProducts, upsertProducts } from './catalog-store.js';
import { validateCatalogPatch } from './validate-catalog-patch.js';
import type { Storage } from '../storage/storage.js';

type RawRequest = IncomingMessage;

export const CATALOG_PATH = '/v1/:org/projects/:project/catalog';

/** What the catalog route uses of the service. */
export interface CatalogRouteDeps {
  storage: Storage;
}

const CATALOG_ERRORS = ['invalid_catalog', 'invalid_product'] as const;

/**
 * `PUT /v1/{org}/projects/{project}/catalog?apiKey=…` (issue 6): upserts up to 100,000 products, sent as a
 * JSON array or an `application/x-ndjson` stream, validated per item (400 `invalid_product` naming the index),
 * stored in one transaction; answers `{upserted}` (distinct ids written).
 *
 * apiKey only, checked before the body is read: a writeKey ships in every page, so a visitor could otherwise
 * rewrite prices. `PATCH` (same path, JSON array) sets `available`, `inventory` or `price` of stored products, as a shop's
 * stock webhook calls it: `{updated, notFound}`, an id the catalog does not hold being reported, not refused (a webhook
 * that got a 4xx for a product not uploaded yet would retry it for days). The PUT route has a scope of its own (its
 * `parsers`), so its NDJSON parser applies to it alone; both take the catalog's 64 MiB (every other route keeps 1 MiB).
 */
export function catalogRoutes(ctx: CatalogRouteDeps): ApiRoute[] {
  const apiKeyOnly = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (request.auth?.kind !== 'apiKey') {
      done(new ServiceError('invalid_credentials', 'The catalog API takes an apiKey (?apiKey=); a writeKey may not change the catalog.'));
      return;
    }
    done();
  };
  const common = {
    path: CATALOG_PATH,
    tag: 'Recommendations',
    access: { kind: 'project', keys: ['apiKey'] },
    bodyLimit: CATALOG_BODY_LIMIT,
    onRequest: [apiKeyOnly],
  } as const;
  return [
    apiRoute<{ Params: ProjectParams }>({
      ...common,
      method: 'PUT',
      summary: 'Upload products',
      description: 'Upserts up to 100,000 products (a JSON array, or NDJSON), validated per item, stored in one transaction.',
      request: { json: Type.Array(CatalogProduct, { minItems: 1, maxItems: 100_000 }), media: { 'application/x-ndjson': CatalogProduct } },
      answers: { 200: { description: 'Stored: how many distinct ids were written.', json: Type.Object({ upserted: Type.Integer({ minimum: 0 }) }) } },
      errors: CATALOG_ERRORS,
      parsers: { 'application/x-ndjson': (_request: FastifyRequest, payload: RawRequest) => productsFromNdjson(payload, CATALOG_BODY_LIMIT) },
      handler: async (request) => {
        const products = productsFromArray(request.body);
        const upserted = await upsertProducts(ctx.storage, projectKey(request), products);
        return { upserted };
      },
    }),
    // A partial update is a JSON array only (the NDJSON parser reads whole products).
    apiRoute<{ Params: ProjectParams }>({
      ...common,
      method: 'PATCH',
      summary: 'Change stock and prices',
      description: 'Sets `available`, `inventory` or `price` of stored products; ids the catalog does not hold are reported.',
      request: { json: CatalogPatch },
      answers: { 200: { description: 'What was updated, and what the catalog does not hold.', json: CatalogPatchAnswer } },
      errors: ['invalid_catalog', 'invalid_product'],
      handler: async (request) => patchProducts(ctx.storage, projectKey(request), validateCatalogPatch(request.body)),
    }),
  ];
}

/** The project the apiKey of `request` is for (set by the route's onRequest hooks). */
function projectKey(request: FastifyRequest): string {
  const project = request.auth?.project;
  if (!project) throw new ServiceError('missing_credentials', 'Send an apiKey query parameter.');
  return project.key;
}
