import type { FastifyInstance } from 'fastify';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from './events.js';
import { basic } from './test-config.js';

export const WRITE_AUTH = { authorization: basic('web1.p4ss') };
export const API_KEY = 'srv1.s3cret';

/** One feed per strategy (ids 1–5), a small configured catalog, a feed-backed experience. */
export function recommendationsConfig(): ServiceConfigFile {
  return {
    organizations: {
      acme: {
        projects: {
          shop: {
            apiKeys: [API_KEY],
            writeKeys: ['web1.p4ss'],
            sources: ['web'],
            experiences: [{ name: 'recs', feed: 1, limit: 5 }, { name: 'recent-recs', feed: 4, limit: 3 }],
            feeds: [
              { id: 1, strategy: 'popular' },
              { id: 2, strategy: 'viewed-together' },
              { id: 3, strategy: 'bought-together' },
              { id: 4, strategy: 'recently-viewed' },
              { id: 5, strategy: 'personalized' },
            ],
            catalog: [
              { id: 'cfg-1', title: 'Configured mug', price: 12.5, currency: 'EUR', url: '/p/cfg-1', image: '/img/cfg-1.jpg' },
              { id: 'cfg-2', title: 'Configured kettle', available: false },
            ],
          },
          blog: { apiKeys: ['srvblog.x'], writeKeys: ['webblog.y'], sources: ['web'] },
        },
      },
    },
  };
}

export type ProductEventName = 'Product viewed' | 'Added to cart' | 'Product ordered';

/** A product event as the SDK sends it (type "product", data {productId, quantity, orderId?}). */
export function productEvent(
  name: ProductEventName, productId: string,
  options: { profileId?: string; sessionId?: string; orderId?: string; at?: number } = {},
): ServiceEvent {
  const data: Record<string, unknown> = { productId, quantity: 1 };
  if (options.orderId !== undefined) data.orderId = options.orderId;
  return makeEvent({
    type: 'product', name,
    profileId: options.profileId ?? 'rec-profile',
    sessionId: options.sessionId ?? 'rec-session',
    ...(options.at !== undefined ? { timestamp: new Date(options.at).toISOString() } : {}),
    data,
  });
}

/**
 * Posts events through the real track endpoint, 500 per batch (its maximum), then waits until the models count them
 * all: the service applies them a fraction of a second after its answers, and only a visitor's own feed waits for
 * them by itself.
 */
export async function track(app: FastifyInstance, events: readonly ServiceEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 500) {
    const res = await app.inject({
      method: 'POST', url: '/v1/acme/projects/shop/sources/web/track', headers: WRITE_AUTH,
      payload: { batch: events.slice(i, i + 500) },
    });
    if (res.statusCode !== 200) throw new Error(`track failed: ${res.statusCode} ${res.body}`);
  }
  await app.svc.models.settle();
}

/** Upserts products through the catalog API (JSON array). */
export async function putCatalog(app: FastifyInstance, products: readonly Record<string, unknown>[]): Promise<void> {
  const res = await app.inject({
    method: 'PUT', url: `/v1/acme/projects/shop/catalog?apiKey=${API_KEY}`, payload: products as unknown as Record<string, unknown>,
  });
  if (res.statusCode !== 200) throw new Error(`catalog failed: ${res.statusCode} ${res.body}`);
}

/** Product ids of one feed answer. */
export async function feedIds(
  app: FastifyInstance, feed: number, body: { profileId?: string; limit: number; productId?: string },
): Promise<string[]> {
  const res = await app.inject({
    method: 'POST', url: `/v1/acme/projects/shop/feeds/${feed}/data`, headers: WRITE_AUTH,
    payload: { profileId: body.profileId ?? 'anyone', sourceId: 'web', limit: body.limit, fields: ['title'], ...(body.productId ? { productId: body.productId } : {}) },
  });
  if (res.statusCode !== 200) throw new Error(`feed failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { products: { id: string }[] }).products.map((p) => p.id);
}
