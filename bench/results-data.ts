// What the results benches share: the shop's config and constants, the results request, and timing helpers.
import type { FastifyInstance } from 'fastify';
import type { ServiceConfigFile } from '../server/config/config-types.js';
import { INDEX_EXPOSURES } from '../server/results/exposure-indexer.js';
import type { Storage } from '../server/storage/storage.js';

/** hero as the bench's config has it, before its traffic went from 100 % to 90 % halfway through the exposures. */
export const HERO_V1 = { name: 'hero', variations: [{ name: 'control', weight: 50, body: { title: 'Welcome' } }, { name: 'bold', weight: 50, body: { title: 'Big sale' } }] };

export const PROJECT = 'acme/shop';
export const DAY = 86_400_000;
export const BATCH = 20_000;
export const START = Date.parse('2026-10-01T00:00:00.000Z');

export function config(): ServiceConfigFile {
  return {
    organizations: { acme: { projects: { shop: {
      apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'],
      experiences: [
        { ...HERO_V1, traffic: 90 },
        { name: 'footer', variations: [
          { name: 'a', weight: 50, body: {} }, { name: 'b', weight: 50, body: {} },
        ] },
      ],
      metrics: [
        { name: 'purchase', event: 'Product ordered', type: 'binomial' },
        { name: 'revenue', event: 'Product ordered', type: 'sum', value: 'price' },
        { name: 'revenue-cuped', event: 'Product ordered', type: 'sum', value: 'price', cuped: true },
      ],
    } } } },
  };
}

export function uuid(rand: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

export interface Answer {
  units: number;
  dimensions?: unknown[];
  series?: unknown[];
  metrics: { name: string; variations: { name: string; total: number }[] }[];
}

export async function results(app: FastifyInstance, query = ''): Promise<Answer> {
  const res = await app.inject({ method: 'GET', url: `/v1/acme/projects/shop/experiences/hero/results?apiKey=srv1.s3cret${query}` });
  if (res.statusCode !== 200) throw new Error(`results answered ${res.statusCode}: ${res.body}`);
  return res.json() as Answer;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

export async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = process.hrtime.bigint();
  const value = await work();
  return [value, Number(process.hrtime.bigint() - started) / 1e6];
}

/**
 * What a running service's indexer does within a second of the writes (results/exposure-indexer.ts): the exposures
 * measured are in results' index, as they are a moment after they were written.
 */
export async function indexExposures(storage: Storage): Promise<void> {
  while ((await storage.place(INDEX_EXPOSURES, 5000)).more);
}
