// A service on SQLite given every kind of row through its HTTP API (people and their sessions, an access key, an
// experiment with two phases and its exposures, events, identities, consents, a catalog and the models built from
// product events, an erasure), and the answers a copy of it must give alike: results, feeds and Choose.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from './events.js';
import { ADMIN, BROWSER, requestDone } from './privacy-api.js';
import { productEvent } from './recommendation-fixtures.js';
import { testConfig } from './test-config.js';

const BASE = '/v1/acme/projects/shop';
const HOUR = 3_600_000;
/** The clock every app of the scenario reads: the same on SQLite and on PostgreSQL. */
export const SCENARIO_NOW = Date.parse('2026-11-01T00:00:00.000Z');
/** Visitors of each phase (phase 1: v0…, phase 2: w0…). */
const VISITORS = 24;

export function scenarioConfig(): ServiceConfigFile {
  const file = testConfig();
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  const shop = file.organizations.acme!.projects.shop!;
  shop.metrics = [
    { name: 'purchase', event: 'Product ordered', type: 'binomial' },
    { name: 'revenue', event: 'Product ordered', type: 'sum', value: 'price' },
  ];
  shop.feeds = [{ id: 1, strategy: 'popular' }, { id: 2, strategy: 'viewed-together' }, { id: 4, strategy: 'recently-viewed' }];
  shop.limits = { writeKeyPerSecond: 1_000_000, apiKeyPerSecond: 1_000_000 };
  return file;
}

async function ok(app: FastifyInstance, method: 'POST' | 'PUT', url: string, headers: Record<string, string>, payload: unknown): Promise<unknown> {
  const res = await app.inject({ method, url, headers, payload: payload as Record<string, unknown> });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

const experiment = (weights: [number, number]) => ({
  name: 'hero', goals: ['purchase'], secondary: ['revenue'],
  variations: [{ name: 'control', weight: weights[0], body: { v: 'control' } }, { name: 'bold', weight: weights[1], body: { v: 'bold' } }],
});

const choose = (app: FastifyInstance, profileId: string) => ok(app, 'POST', `${BASE}/optimization/choose-api`, BROWSER, {
  identification: { sourceId: 'web', profileId }, names: ['hero', 'welcome-note'], device: 'desktop',
});

/** Fills the service's tables through its API; `clock` is what the app's `now` reads (moved forward as it goes). */
export async function fillService(app: FastifyInstance, clock: { now: number }): Promise<void> {
  const track = (batch: ServiceEvent[]) => ok(app, 'POST', `${BASE}/sources/web/track`, BROWSER, { batch });
  const at = () => new Date(clock.now).toISOString();
  await ok(app, 'PUT', `${BASE}/catalog?apiKey=srv1.s3cret`, {}, ['mug', 'kettle', 'teapot', 'cup'].map((id, i) => ({
    id, title: `A ${id}`, price: 10 + i, currency: 'EUR', url: `/p/${id}`,
  })));
  await ok(app, 'PUT', `${BASE}/experiences/hero`, ADMIN, experiment([50, 50]));
  for (const [phase, prefix] of [[1, 'v'], [2, 'w']] as const) {
    if (phase === 2) await ok(app, 'PUT', `${BASE}/experiences/hero`, ADMIN, experiment([20, 80]));
    clock.now += HOUR;
    for (let i = 0; i < VISITORS; i++) {
      const profileId = `${prefix}${i}`;
      const answer = await choose(app, profileId) as { choices: { name: string; variation?: string }[] };
      const bold = answer.choices.find((c) => c.name === 'hero')?.variation === 'bold';
      const visit = { profileId, sessionId: `s-${profileId}`, pageId: `p-${profileId}`, timestamp: at() };
      const batch: ServiceEvent[] = [
        makeEvent({ ...visit, name: 'Page viewed', data: { url: 'https://shop.example/' } }),
        { ...productEvent('Product viewed', ['mug', 'kettle', 'teapot'][i % 3]!, { profileId, sessionId: visit.sessionId }), timestamp: at() },
        { ...productEvent('Product viewed', 'cup', { profileId, sessionId: visit.sessionId }), timestamp: at() },
      ];
      if (i % 4 === 0) batch.push(makeEvent({ ...visit, type: 'identify', name: 'identify', userId: `u-${profileId}`, userAttributes: { plan: 'pro' } }));
      if (bold ? i % 2 === 0 : i % 5 === 0) {
        batch.push({ ...productEvent('Product ordered', 'mug', { profileId, sessionId: visit.sessionId, orderId: `o-${profileId}` }), timestamp: at() });
        batch[batch.length - 1]!.data = { ...batch[batch.length - 1]!.data, price: 12 + (i % 3) };
      }
      await track(batch);
    }
  }
  await app.svc.models.settle();
  for (const [i, action] of ['accept', 'reject'].entries()) {
    await ok(app, 'POST', `${BASE}/consents/data`, BROWSER, { profileId: `v${i}`, action, validUntil: clock.now + 365 * 24 * HOUR });
  }
  await ok(app, 'POST', '/v1/acme/keys', ADMIN, { name: 'ci deploys', role: 'editor', projects: ['shop'] });
  await ok(app, 'PUT', '/v1/acme/people/ann%40example.com', ADMIN, { role: 'editor' });
  const invited = await ok(app, 'POST', '/v1/acme/people/ann%40example.com/invitation', ADMIN, {}) as { url: string };
  const token = invited.url.slice(invited.url.lastIndexOf('/') + 1);
  await ok(app, 'POST', '/v1/acme/invitations/accept', {}, { token, password: 'correct horse battery staple' });
  await ok(app, 'PUT', '/v1/acme/people/ben%40example.com', ADMIN, { role: 'viewer' });
  await ok(app, 'POST', '/v1/acme/people/ben%40example.com/invitation', ADMIN, {});
  await requestDone(app, 'erasures', { profileId: `v${VISITORS - 1}`, sourceId: 'web' });
}

/** What visitors and the team read: the experiment's results (each phase), feeds, and Choose for known visitors. */
export async function serviceAnswers(app: FastifyInstance): Promise<Record<string, unknown>> {
  const read = async (method: 'GET' | 'POST', url: string, payload?: unknown): Promise<unknown> => {
    const res = await app.inject({ method, url, headers: method === 'POST' ? BROWSER : {}, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.json();
  };
  // Each answer has a recommendationId of its own (a new UUID): the products are what both services must answer alike.
  const feed = async (id: number, body: Record<string, unknown>) => {
    const { recommendationId, ...answer } = await read('POST', `${BASE}/feeds/${id}/data`, {
      sourceId: 'web', limit: 4, fields: ['title', 'price'], ...body,
    }) as { recommendationId: unknown };
    assert.equal(typeof recommendationId, 'string');
    return answer;
  };
  const answers: Record<string, unknown> = {};
  for (const query of ['', '&phase=1']) answers[`results${query}`] = await read('GET', `${BASE}/experiences/hero/results?apiKey=srv1.s3cret${query}`);
  answers.popular = await feed(1, { profileId: 'anyone' });
  answers.together = await feed(2, { profileId: 'anyone', productId: 'cup' });
  answers.recent = await feed(4, { profileId: 'v1' });
  answers.choose = [];
  for (const profileId of ['v0', 'v5', 'w3', 'w7', 'newcomer']) (answers.choose as unknown[]).push(await choose(app, profileId));
  return answers;
}
