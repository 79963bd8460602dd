// The events a project's webhooks are told, on SQLite and PostgreSQL, driven through the real service: management
// writes (an experiment's start, new phase, stop, winner, restart and deletion; a feed's creation, change and
// deletion; a bandit's weights moved by hand), the bandit watch's reweight, the guardrail watch's stop and privacy
// requests. Each occurrence queues exactly one message, for the enabled endpoints that asked for its type, with no
// visitor's id, email or secret in it. The app's clock is pinned; its own watches are kept out of the way.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { ExperienceConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { GuardrailWatch } from '../../../server/guardrails/guardrail-watch.js';
import { ResultsService } from '../../../server/results/results-service.js';
import type { Storage } from '../../../server/storage/storage.js';
import { slackMessage } from '../../../server/webhooks/slack-message.js';
import { consolePath } from '../../../server/webhooks/webhook-outbox.js';
import { WEBHOOK_EVENT_TYPES, type WebhookActor } from '../../../wire/webhook-events.js';
import { ADMIN, BASE, banditConfig, crowd, feedBandit, HOUR, MINUTE, put, read, watchOf, weightsOf } from '../helpers/bandit-scenario.js';
import { makeEvent } from '../helpers/events.js';
import { requestDone } from '../helpers/privacy-api.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';
import { payloadOf, queuedMessages, resultsPath, type QueuedMessage } from '../helpers/webhook-endpoints.js';
import { insertEndpoint } from '../helpers/webhook-fixtures.js';

const PROJECT = 'acme/shop';
const BROWSER = { authorization: basic('web1.p4ss') };
const KEY: WebhookActor = { type: 'key', name: 'adm1' };

function config(): ServiceConfigFile {
  const file = banditConfig();
  file.organizations.acme!.projects.shop!.metrics!.push({ name: 'errors', event: 'Error shown', type: 'binomial', inverse: true });
  return file;
}

function experiment(name: string, weights: [number, number], extra: Partial<ExperienceConfig> = {}): ExperienceConfig {
  return { name, variations: [{ name: 'control', weight: weights[0], body: { v: 'control' } }, { name: 'bold', weight: weights[1], body: { v: 'bold' } }], ...extra };
}

/** The messages about one experience, oldest first. */
async function about(storage: Storage, name: string): Promise<QueuedMessage[]> {
  return (await queuedMessages(storage, PROJECT)).filter((m) => (m.data as { experience?: string }).experience === name);
}

for (const driver of DRIVERS) {
  describe(`webhook events of what happens in a project (${driver.name})`, () => {
    let clock = Date.parse('2026-12-01T00:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock, banditIntervalMs: 24 * HOUR, guardrailIntervalMs: 24 * HOUR, webhooks: { deliver: false } }));
    const secrets: string[] = [];
    /** Every visitor id and address the tests send: none may be in a message. */
    const visitors: string[] = [];

    before(async () => {
      secrets.push((await insertEndpoint(h.storage, { project: PROJECT, id: 'ep_all', events: WEBHOOK_EVENT_TYPES })).secret);
      secrets.push((await insertEndpoint(h.storage, { project: PROJECT, id: 'ep_feeds', events: ['feed.changed'] })).secret);
      secrets.push((await insertEndpoint(h.storage, { project: PROJECT, id: 'ep_off', events: WEBHOOK_EVENT_TYPES, enabled: false })).secret);
      secrets.push((await insertEndpoint(h.storage, { project: 'acme/blog', id: 'ep_blog', events: WEBHOOK_EVENT_TYPES })).secret);
    });

    const write = async (item: ExperienceConfig, status = 200): Promise<void> => {
      clock += MINUTE;
      const res = await put(h.app, item);
      assert.equal(res.statusCode, status, res.body);
    };

    it('tells an experiment\'s start, new phase, stop, winner, restart and deletion once each; edits that change none of them, nothing', async () => {
      const name = `hero-${driver.name}`;
      await write(experiment(name, [50, 50], { status: 'draft' }), 201);
      await write(experiment(name, [50, 50]));
      await write(experiment(name, [50, 50], { group: 'homepage' }));
      await write(experiment(name, [20, 80], { group: 'homepage', traffic: 50 }));
      await write(experiment(name, [20, 80], { group: 'homepage', traffic: 50, status: 'stopped' }));
      await write(experiment(name, [20, 80], { group: 'homepage', traffic: 50, status: 'stopped', winner: 'bold' }));
      await write(experiment(name, [20, 80], { group: 'homepage', traffic: 50 }));
      clock += MINUTE;
      assert.equal((await h.app.inject({ method: 'DELETE', url: `${BASE}/experiences/${name}`, headers: ADMIN })).statusCode, 204);

      const messages = await about(h.storage, name);
      const even = { control: 50, bold: 50 };
      const tilted = { control: 20, bold: 80 };
      assert.deepEqual(messages.map((m) => [m.type, m.data]), [
        ['experiment.started', { experience: name, phase: 1, weights: even, traffic: 100, by: KEY }],
        ['experiment.phase_started', {
          experience: name, phase: 2, changes: ['weights 50/50 → 20/80', 'traffic 100 % → 50 %'],
          before: { weights: even, traffic: 100 }, after: { weights: tilted, traffic: 50 }, by: KEY,
        }],
        ['experiment.stopped', { experience: name, reason: 'person', phase: 2, by: KEY }],
        ['experiment.stopped', { experience: name, reason: 'winner', winner: 'bold', phase: 2, by: KEY }],
        ['experiment.started', { experience: name, phase: 3, weights: tilted, traffic: 50, by: KEY }],
        ['experiment.stopped', { experience: name, reason: 'person', phase: 3, by: KEY }],
      ]);
      for (const m of messages) {
        assert.deepEqual([m.endpoints, m.path, m.dedupe], [['ep_all'], resultsPath(PROJECT, name), null], m.type);
      }
      assert.equal(new Set(messages.map((m) => m.at)).size, messages.length, 'each at the time of its write');
    });

    it('tells a feed\'s creation, change and deletion to every endpoint that asked for feed.changed; a metric\'s write, nothing', async () => {
      const count = (await queuedMessages(h.storage, PROJECT)).length;
      clock += MINUTE;
      const metric = await h.app.inject({ method: 'PUT', url: `${BASE}/metrics/signup`, headers: ADMIN, payload: { event: 'Signed up', type: 'binomial' } });
      assert.equal(metric.statusCode, 201, metric.body);
      assert.equal((await queuedMessages(h.storage, PROJECT)).length, count);

      for (const [method, payload] of [['PUT', { strategy: 'popular' }], ['PUT', { strategy: 'popular', limit: 5 }], ['DELETE', undefined]] as const) {
        clock += MINUTE;
        const res = await h.app.inject({ method, url: `${BASE}/feeds/7`, headers: ADMIN, ...(payload ? { payload } : {}) });
        assert.ok(res.statusCode < 300, res.body);
      }
      const feeds = await queuedMessages(h.storage, PROJECT, 'feed.changed');
      assert.deepEqual(feeds.map((m) => [m.data, m.endpoints, m.path]), [
        [{ feed: 7, action: 'created', by: KEY }, ['ep_all', 'ep_feeds'], consolePath(PROJECT, '#/feeds/7/edit')],
        [{ feed: 7, action: 'updated', by: KEY }, ['ep_all', 'ep_feeds'], consolePath(PROJECT, '#/feeds/7/edit')],
        [{ feed: 7, action: 'deleted', by: KEY }, ['ep_all', 'ep_feeds'], consolePath(PROJECT, '#/feeds')],
      ]);
    });

    it('tells a bandit\'s weights moved by hand and by the bandit watch, with each arm\'s chance of being best', async () => {
      const name = `bandit-${driver.name}`;
      clock += HOUR;
      const started = clock;
      assert.equal((await put(h.app, feedBandit(name, {}, [50, 50]))).statusCode, 201);
      clock += MINUTE;
      assert.equal((await put(h.app, feedBandit(name, {}, [30, 70]))).statusCode, 200);
      const arms = await crowd(h.app, name, name, 100, clock);
      visitors.push(...arms.keys());
      clock = started + 2 * HOUR;
      const [made, ...more] = (await watchOf(h.app, () => clock).check()).filter((r) => r.experience === name);
      assert.equal(more.length, 0);
      assert.equal(made?.reason, 'thompson');

      const messages = await about(h.storage, name);
      assert.deepEqual(messages.map((m) => m.type), ['experiment.started', 'bandit.reweighted', 'bandit.reweighted'], 'a bandit\'s reweight is no phase');
      const [, manual, drawn] = messages as [QueuedMessage, QueuedMessage<'bandit.reweighted'>, QueuedMessage<'bandit.reweighted'>];
      assert.deepEqual(manual.data, { experience: name, weights: { 'feed-1': 30, 'feed-2': 70 }, previous: { 'feed-1': 50, 'feed-2': 50 }, reason: 'manual', by: KEY });
      const { probabilityBest, ...rest } = drawn.data;
      assert.deepEqual(rest, {
        experience: name, weights: made.weights, previous: { 'feed-1': 30, 'feed-2': 70 }, reason: 'thompson', by: { type: 'service', name: 'svc bandit' },
      });
      assert.deepEqual(weightsOf(await read(h.app, name)), made.weights);
      assert.deepEqual(Object.keys(probabilityBest ?? {}), ['feed-1', 'feed-2']);
      assert.ok(probabilityBest!['feed-2']! > 0.9, JSON.stringify(probabilityBest));
      assert.equal(drawn.at, clock);
    });

    it('tells the guardrail watch\'s stop with its numbers, once, and renders it for Slack with the console link', async () => {
      const name = `harmed-${driver.name}`;
      await write(experiment(name, [50, 50], { guardrails: ['errors'] }), 201);
      const events = [];
      for (let i = 0; i < 300; i++) {
        const profileId = `${name}-visitor-${i}`;
        visitors.push(profileId);
        const res = await h.app.inject({
          method: 'POST', url: `${BASE}/optimization/choose-api`, headers: BROWSER,
          payload: { identification: { sourceId: 'web', profileId }, names: [name], device: 'desktop' },
        });
        const variation = (res.json() as { choices: { variation?: string }[] }).choices[0]?.variation;
        if (variation === 'bold' ? i % 5 !== 0 : i % 20 === 0) {
          events.push(makeEvent({ type: 'track', name: 'Error shown', profileId, timestamp: new Date(clock).toISOString(), data: {} }));
        }
      }
      clock += MINUTE;
      assert.equal((await h.app.inject({ method: 'POST', url: `${BASE}/sources/web/track`, headers: BROWSER, payload: { batch: events } })).statusCode, 200);
      const svc = (h.app as unknown as { svc: ConstructorParameters<typeof GuardrailWatch>[0] }).svc;
      const watch = new GuardrailWatch({ ...svc, results: new ResultsService(svc.storage) }, { now: () => clock });
      assert.deepEqual((await watch.check()).filter((s) => s.experience === name).map((s) => s.stop.rule), ['guardrail']);
      assert.deepEqual((await watch.check()).filter((s) => s.experience === name), []);
      await watch.close();

      const stops = (await about(h.storage, name)).filter((m) => m.type === 'experiment.stopped') as QueuedMessage<'experiment.stopped'>[];
      assert.equal(stops.length, 1);
      const stop = stops[0]!;
      const stoppedBy = (await read(h.app, name)).stoppedBy!;
      assert.deepEqual(stop.data, { experience: name, reason: 'guardrail', stoppedBy, phase: 1, by: { type: 'service', name: 'svc guardrail watch' } });
      assert.deepEqual([stoppedBy.metric, stoppedBy.variation], ['errors', 'bold']);

      const slack = slackMessage(payloadOf(stop));
      assert.equal(slack.text, `Experiment ${name} stopped: bold harmed the guardrail errors (acme/shop)`);
      const rendered = JSON.stringify(slack.blocks);
      const percent = `+${(stoppedBy.uplift! * 100).toFixed(1)} %`;
      for (const shown of ['*Metric*\\nerrors', '*Variation*\\nbold', percent, 'p-value adjusted', `Holm over ${stoppedBy.familySize} tests`, 'svc guardrail watch']) {
        assert.ok(rendered.includes(shown), `${shown} in ${rendered}`);
      }
      assert.ok(rendered.includes(`"url":"http://localhost:8787${resultsPath(PROJECT, name)}"`), rendered);

      // The team then ships the control, writing back the stopped item as read (its stoppedBy along): a winner chosen.
      const { version: _version, source: _source, ...stored } = await read(h.app, name) as ExperienceConfig & { version: number; source: string };
      await write({ ...stored, winner: 'control' });
      const last = (await about(h.storage, name)).at(-1)!;
      assert.deepEqual([last.type, last.data], ['experiment.stopped', { experience: name, reason: 'winner', winner: 'control', phase: 1, by: KEY }]);
    });

    it('tells a privacy request done by its id and counts, never whom it was about', async () => {
      const profileId = `private-visitor-${driver.name}`;
      const email = `private.person.${driver.name}@example.com`;
      visitors.push(profileId, email);
      const batch = [makeEvent({ type: 'track', name: 'Product viewed', profileId, timestamp: new Date(clock).toISOString(), data: {} })];
      assert.equal((await h.app.inject({ method: 'POST', url: `${BASE}/sources/web/track`, headers: BROWSER, payload: { batch } })).statusCode, 200);
      const erasure = await requestDone(h.app, 'erasures', { profileId, sourceId: 'web' });
      const exported = await requestDone(h.app, 'exports', { email });

      // Both done at the app's pinned time: in the order of their kinds.
      const done = (await queuedMessages(h.storage, PROJECT, 'privacy.request_done')).sort((a, b) => a.data.kind.localeCompare(b.data.kind));
      assert.deepEqual(done.map((m) => [m.data, m.endpoints, m.path]), [erasure, exported].map((r) => [
        { request: r.id, kind: r === erasure ? 'erasure' : 'export', status: 'done', counts: r.counts }, ['ep_all'], consolePath(PROJECT, '#/privacy'),
      ]));
      assert.equal((erasure.counts as Record<string, number>).events, 1);
    });

    it('queues nothing for a disabled endpoint, another project\'s or one that did not ask for the type; no visitor id, email or secret', async () => {
      const messages = await queuedMessages(h.storage, PROJECT);
      assert.ok(messages.length >= 15, `${messages.length} messages`);
      for (const m of messages) {
        assert.deepEqual(m.endpoints, m.type === 'feed.changed' ? ['ep_all', 'ep_feeds'] : ['ep_all'], m.type);
        for (const secret of [...secrets, ...visitors]) assert.ok(!m.stored.includes(secret), `${m.type} holds ${secret}`);
        assert.ok(!/whsec_|@example\.com/.test(m.stored), m.stored);
      }
      assert.deepEqual(await queuedMessages(h.storage, 'acme/blog'), []);
    });
  });
}
