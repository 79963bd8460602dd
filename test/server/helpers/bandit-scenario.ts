// A bandit over two feeds as the end-to-end tests of its reweights drive it: the project (two feeds, an order metric),
// people served through the Choose API and their orders sent to /track, the weights and reweights as the service keeps
// them, and a bandit watch looking with the test's pinned clock.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { BanditWatch } from '../../../server/bandits/bandit-watch.js';
import type { BanditSettings, ExperienceConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { readReweights, type StoredReweight } from '../../../server/phases/reweight-store.js';
import { ResultsService } from '../../../server/results/results-service.js';
import type { Storage } from '../../../server/storage/storage.js';
import { makeEvent } from './events.js';
import { basic, testConfig } from './test-config.js';

export const BASE = '/v1/acme/projects/shop';
export const ADMIN = { authorization: 'Bearer adm1.s3cret' };
const BROWSER = { authorization: basic('web1.p4ss') };
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

/** The test project: two feeds (the arms), an order metric (the decision metric), an admin key. */
export function banditConfig(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.feeds = [{ id: 1, strategy: 'popular' }, { id: 2, strategy: 'popular', dedupe: false }];
  shop.metrics = [
    { name: 'purchase', event: 'Product ordered', type: 'binomial' },
    { name: 'revenue', event: 'Product ordered', type: 'sum', value: 'price' },
  ];
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  return file;
}

/** A bandit whose arms are the two feeds, deciding by orders, reweighting hourly. */
export function feedBandit(name: string, bandit: BanditSettings = {}, weights: [number, number] = [50, 50]): ExperienceConfig {
  return {
    name,
    variations: [{ name: 'feed-1', weight: weights[0], body: { feed: 1 } }, { name: 'feed-2', weight: weights[1], body: { feed: 2 } }],
    goals: ['purchase', 'revenue'],
    allocation: 'bandit',
    bandit: { metric: 'purchase', cadenceMinutes: 60, explorationHours: 0, ...bandit },
  };
}

export async function put(app: FastifyInstance, item: ExperienceConfig, headers: Record<string, string> = {}) {
  return app.inject({ method: 'PUT', url: `${BASE}/experiences/${item.name}`, headers: { ...ADMIN, ...headers }, payload: item });
}

/** The experience as the management API answers it on this node. */
export async function read(app: FastifyInstance, name: string): Promise<ExperienceConfig & { version: number }> {
  const res = await app.inject({ method: 'GET', url: `${BASE}/experiences/${name}`, headers: ADMIN });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as ExperienceConfig & { version: number };
}

/** The arm the Choose API serves this person (and exposes them to), with the arm's body. */
export async function choose(app: FastifyInstance, name: string, profileId: string): Promise<{ variation?: string; body?: { feed?: number } }> {
  const res = await app.inject({
    method: 'POST', url: `${BASE}/optimization/choose-api`, headers: BROWSER,
    payload: { identification: { sourceId: 'web', profileId }, names: [name], device: 'desktop' },
  });
  assert.equal(res.statusCode, 200, res.body);
  const choice = (res.json() as { choices: { name: string; variation?: string; body?: { feed?: number } }[] }).choices.find((c) => c.name === name);
  return choice ?? {};
}

/** Orders (`Product ordered`) of these people at `at`. */
export async function order(app: FastifyInstance, profileIds: readonly string[], at: number): Promise<void> {
  if (profileIds.length === 0) return;
  const batch = profileIds.map((profileId) => makeEvent({
    type: 'track', name: 'Product ordered', profileId, timestamp: new Date(at).toISOString(), data: { price: 20 },
  }));
  const res = await app.inject({ method: 'POST', url: `${BASE}/sources/web/track`, headers: BROWSER, payload: { batch } });
  assert.equal(res.statusCode, 200, res.body);
}

/**
 * `count` people (`${prefix}-${i}`) served the bandit at `at`, who order a minute later: half of feed-2's people, a
 * tenth of feed-1's. Answers each person's arm.
 */
export async function crowd(app: FastifyInstance, name: string, prefix: string, count: number, at: number): Promise<Map<string, string>> {
  const arms = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const profile = `${prefix}-${i}`;
    const { variation } = await choose(app, name, profile);
    assert.ok(variation, `${profile} was served an arm`);
    arms.set(profile, variation);
  }
  const buyers = [...arms].filter(([, arm], i) => (arm === 'feed-2' ? i % 2 === 0 : i % 10 === 0)).map(([p]) => p);
  await order(app, buyers, at + MINUTE);
  return arms;
}

/** A bandit watch on this app's service, looking with `now`. */
export function watchOf(app: FastifyInstance, now: () => number): BanditWatch {
  const svc = app.svc;
  return new BanditWatch({ ...svc, results: new ResultsService(svc.storage) }, { now });
}

/** The experience's reweights as stored, oldest first. */
export function reweightsOf(storage: Storage, name: string): Promise<StoredReweight[]> {
  return readReweights(storage, 'acme/shop', name);
}

/** The weights by arm. */
export function weightsOf(experience: ExperienceConfig): Record<string, number> {
  return Object.fromEntries((experience.variations ?? []).map((v) => [v.name, v.weight]));
}

/** The project's audit entries of this item, newest first. */
export async function auditOf(app: FastifyInstance, name: string): Promise<{ action: string; keyId: string; actor: { name: string }; after: ExperienceConfig }[]> {
  const res = await app.inject({ method: 'GET', url: `${BASE}/audit?name=${name}&limit=100`, headers: ADMIN });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().entries;
}
