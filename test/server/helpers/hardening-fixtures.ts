// A project with every endpoint's kind of data (an experiment, a feed, a catalog) and no practical writeKey rate
// limit, for tests that send many bad requests in a row, plus one sender per endpoint.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { basic } from './test-config.js';

export const API_KEY = 'srv1.s3cret';
export const WRITE_AUTH = basic('web1.p4ss');

export function hardeningConfig(): ServiceConfigFile {
  return {
    organizations: {
      acme: {
        projects: {
          shop: {
            apiKeys: [API_KEY],
            writeKeys: ['web1.p4ss'],
            sources: ['web'],
            limits: { writeKeyPerSecond: 1_000_000 },
            experiences: [
              {
                name: 'hero-banner',
                variations: [
                  { name: 'control', weight: 50, body: { title: 'Welcome' } },
                  { name: 'bold', weight: 50, body: { title: 'Big sale' } },
                ],
              },
              { name: 'welcome-note', body: { text: 'Hello again' } },
            ],
            feeds: [{ id: 1, strategy: 'popular' }],
            catalog: [
              { id: 'p1', title: 'Mug', price: 12.5 },
              { id: 'p2', title: 'Kettle', price: 30 },
              { id: 'p3', title: 'Spoon', price: 2 },
            ],
          },
        },
      },
    },
  };
}

export const ENDPOINTS = {
  track: { method: 'POST', url: '/v1/acme/projects/shop/sources/web/track', auth: WRITE_AUTH },
  consent: { method: 'POST', url: '/v1/acme/projects/shop/consents/data', auth: WRITE_AUTH },
  choose: { method: 'POST', url: `/v1/acme/projects/shop/optimization/choose-api?apiKey=${API_KEY}`, auth: undefined },
  feed: { method: 'POST', url: '/v1/acme/projects/shop/feeds/1/data', auth: WRITE_AUTH },
  catalog: { method: 'PUT', url: `/v1/acme/projects/shop/catalog?apiKey=${API_KEY}`, auth: undefined },
  catalogPatch: { method: 'PATCH', url: `/v1/acme/projects/shop/catalog?apiKey=${API_KEY}`, auth: undefined },
} as const;

export type EndpointName = keyof typeof ENDPOINTS;

/** Sends `payload` (JSON text, or a value to serialize) to one endpoint with its key. */
export function send(
  app: FastifyInstance, endpoint: EndpointName, payload: unknown, contentType = 'application/json',
): Promise<LightMyRequestResponse> {
  const { method, url, auth } = ENDPOINTS[endpoint];
  return app.inject({
    method,
    url,
    headers: { 'content-type': contentType, ...(auth ? { authorization: auth } : {}) },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}
