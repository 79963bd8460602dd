// What the guardrail watch's look at running experiments tells a project's webhooks, on SQLite and PostgreSQL: a
// sample-ratio mismatch in the current phase, and each goal metric the first time a challenger is significant on it
// (sequential or not, as the results answer says), each once per phase however many looks (and nodes) find it. A
// project whose endpoints asked for neither is not computed for them. The app's clock is pinned; its own watch is kept
// out of the way and the tests look through their own.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { ExperienceConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { GuardrailWatch, type GuardrailWatchDeps } from '../../../server/guardrails/guardrail-watch.js';
import { ResultsService } from '../../../server/results/results-service.js';
import { op } from '../../../server/storage/sql-program.js';
import type { ResultsAnswer } from '../../../wire/results-answer.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { WEBHOOK_EVENT_TYPES } from '../../../wire/webhook-events.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';
import { queuedMessages, resultsPath, type QueuedMessage } from '../helpers/webhook-endpoints.js';
import { insertEndpoint } from '../helpers/webhook-fixtures.js';

const PROJECT = 'acme/shop';
const BASE = '/v1/acme/projects/shop';
const ADMIN = { authorization: 'Bearer adm1.s3cret' };
const BROWSER = { authorization: basic('web1.p4ss') };
const HOUR = 3_600_000;
const ALERTS = ['experiment.srm_detected', 'experiment.significant'] as const;

function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.metrics = [
    { name: 'purchase', event: 'Product ordered', type: 'binomial' },
    { name: 'signup', event: 'Signed up', type: 'binomial' },
    { name: 'errors', event: 'Error shown', type: 'binomial', inverse: true },
  ];
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  file.organizations.acme!.projects.blog!.metrics = [{ name: 'read', event: 'Post read', type: 'binomial' }];
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  return file;
}

function experiment(name: string, weights: [number, number], extra: Partial<ExperienceConfig> = {}): ExperienceConfig {
  return { name, variations: [{ name: 'control', weight: weights[0], body: { v: 'control' } }, { name: 'bold', weight: weights[1], body: { v: 'bold' } }], ...extra };
}

for (const driver of DRIVERS) {
  describe(`results alerts: a mismatch, a goal significant (${driver.name})`, () => {
    let clock = Date.parse('2026-12-01T00:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock, guardrailIntervalMs: 24 * HOUR, webhooks: { deliver: false } }));
    /** What the watches computed: the project, the experiment and the metrics asked for. */
    const computed: [string, string, string[]][] = [];
    const visitors: string[] = [];

    before(async () => {
      await insertEndpoint(h.storage, { project: PROJECT, id: 'ep_alerts', events: ALERTS });
      await insertEndpoint(h.storage, { project: PROJECT, id: 'ep_started', events: ['experiment.started'] });
      await insertEndpoint(h.storage, { project: PROJECT, id: 'ep_off', events: WEBHOOK_EVENT_TYPES, enabled: false });
    });

    /** A watch as another node's would be: its own results service, recording what it computes. */
    function watch(): GuardrailWatch {
      const svc = (h.app as unknown as { svc: Omit<GuardrailWatchDeps, 'results'> }).svc;
      const real = new ResultsService(svc.storage);
      const results = Object.create(real) as ResultsService;
      results.compute = (project, experience, query) => {
        computed.push([project, experience.name, query.metrics.map((m) => m.name)]);
        return real.compute(project, experience, query);
      };
      return new GuardrailWatch({ ...svc, results }, { now: () => clock });
    }

    /** Looks with a new watch, as many times as asked, each as a node of its own. */
    async function look(times = 1): Promise<void> {
      for (let i = 0; i < times; i++) {
        const w = watch();
        await w.check();
        await w.close();
      }
    }

    async function put(item: ExperienceConfig, path = BASE): Promise<void> {
      clock += HOUR;
      const res = await h.app.inject({ method: 'PUT', url: `${path}/experiences/${item.name}`, headers: ADMIN, payload: item });
      assert.ok(res.statusCode === 200 || res.statusCode === 201, res.body);
    }

    /** Units shown each variation (`Experiment Viewed`), and the events of those who did something, at the clock. */
    async function units(name: string, phase: string, shown: Record<string, number>, did: Record<string, [string, number][]> = {}): Promise<void> {
      const events: ServiceEvent[] = [];
      const at = new Date(clock).toISOString();
      for (const [variation, count] of Object.entries(shown)) {
        for (let i = 0; i < count; i++) {
          const profileId = `${name}-${phase}-${variation}-${i}`;
          visitors.push(profileId);
          events.push(makeEvent({ type: 'track', name: 'Experiment Viewed', profileId, timestamp: at, data: { experience: name, variation } }));
          for (const [event, share] of did[variation] ?? []) {
            if (i < count * share) events.push(makeEvent({ type: 'track', name: event, profileId, timestamp: at, data: {} }));
          }
        }
      }
      clock += 60_000;
      // A batch holds at most 500 events.
      for (let i = 0; i < events.length; i += 500) {
        const res = await h.app.inject({ method: 'POST', url: `${BASE}/sources/web/track`, headers: BROWSER, payload: { batch: events.slice(i, i + 500) } });
        assert.equal(res.statusCode, 200, res.body);
      }
    }

    const alerts = async (name: string): Promise<QueuedMessage[]> => (await queuedMessages(h.storage, PROJECT))
      .filter((m) => (ALERTS as readonly string[]).includes(m.type) && (m.data as { experience: string }).experience === name);

    it('tells a sample-ratio mismatch once per phase, however many looks and nodes find it; the experiment runs on', async () => {
      const name = `lopsided-${driver.name}`;
      await put(experiment(name, [50, 50]));
      await units(name, 'p1', { control: 120, bold: 40 });
      await look(3);
      const [first, ...more] = await alerts(name) as QueuedMessage<'experiment.srm_detected'>[];
      assert.equal(more.length, 0);
      const { pValue, ...data } = first!.data;
      assert.deepEqual(data, { experience: name, phase: 1, units: { control: 120, bold: 40 }, weights: { control: 50, bold: 50 } });
      assert.ok(pValue < 0.001, String(pValue));
      assert.deepEqual([first!.type, first!.dedupe, first!.endpoints, first!.path], [
        'experiment.srm_detected', `srm:${name}:1`, ['ep_alerts'], resultsPath(PROJECT, name),
      ]);
      const item = await h.app.inject({ method: 'GET', url: `${BASE}/experiences/${name}`, headers: ADMIN });
      assert.equal(item.json().status, 'running');

      // A new phase (new weights) mismatching in turn is told again, once.
      await put(experiment(name, [60, 40]));
      await units(name, 'p2', { control: 60, bold: 140 });
      await look(2);
      assert.deepEqual((await alerts(name)).map((m) => [m.dedupe, (m.data as { units: object }).units]), [
        [`srm:${name}:1`, { control: 120, bold: 40 }], [`srm:${name}:2`, { control: 60, bold: 140 }],
      ]);
    });

    it('tells each goal metric the first time a challenger is significant on it, as the results answer judges it', async () => {
      const goals = ['purchase', 'signup', 'errors'];
      const names = [`winning-${driver.name}`, `winning-sequential-${driver.name}`];
      await put(experiment(names[0]!, [50, 50], { goals }));
      await put(experiment(names[1]!, [50, 50], { goals, sequential: true }));
      const effects = (bold: number): Record<string, [string, number][]> => ({
        control: [['Product ordered', 0.1], ['Signed up', 0.2], ['Error shown', 0.05]],
        bold: [['Product ordered', bold], ['Signed up', 0.2], ['Error shown', bold - 0.1]],
      });
      for (const name of names) await units(name, 'p1', { control: 200, bold: 200 }, effects(0.5));
      await look(2);
      // The same units: significant by the fixed-horizon test, not yet by the sequential one (wider, valid at every look).
      assert.equal((await alerts(names[0]!)).length, 2);
      assert.deepEqual(await alerts(names[1]!), []);
      await units(names[1]!, 'p1-more', { control: 600, bold: 600 }, effects(0.5));
      await look(2);
      for (const [i, name] of names.entries()) {
        const messages = await alerts(name) as QueuedMessage<'experiment.significant'>[];
        assert.deepEqual(messages.map((m) => [m.data.metric, m.dedupe, m.endpoints]).sort(), [
          ['errors', `significant:${name}:1:errors`, ['ep_alerts']], ['purchase', `significant:${name}:1:purchase`, ['ep_alerts']],
        ], 'signup is the same in both: not significant');
        const res = await h.app.inject({ method: 'GET', url: `${BASE}/experiences/${name}/results?apiKey=srv1.s3cret` });
        const answer = res.json() as ResultsAnswer;
        for (const m of messages) {
          const bold = answer.metrics.find((r) => r.name === m.data.metric)!.variations[1]!;
          assert.equal(bold.significant, true);
          assert.deepEqual(m.data, {
            experience: name, phase: 1, metric: m.data.metric, variation: 'bold', baseline: 'control',
            direction: m.data.metric === 'purchase' ? 'better' : 'worse',
            uplift: bold.uplift, ci: bold.ci, pValue: bold.pValue, alpha: 0.05, sequential: i === 1,
          });
        }
      }
    });

    it('computes nothing for a project whose endpoints asked for no alert, nor goals when only mismatches are asked for', async () => {
      await put(experiment('quiet', [50, 50], { goals: ['read'] }), '/v1/acme/projects/blog');
      const judged = `judged-${driver.name}`;
      await put(experiment(judged, [50, 50], { goals: ['purchase'] }));
      computed.length = 0;
      await look();
      assert.deepEqual(computed.filter(([project]) => project !== PROJECT), [], 'the blog has no endpoint');
      assert.deepEqual(computed.find(([, name]) => name === judged), [PROJECT, judged, ['purchase']]);

      await h.storage.transaction(function* () {
        yield op('UPDATE webhook_endpoints SET events = ? WHERE project = ? AND id = ?', JSON.stringify(['experiment.srm_detected']), PROJECT, 'ep_alerts');
      });
      computed.length = 0;
      await look();
      assert.deepEqual(computed.find(([, name]) => name === judged), [PROJECT, judged, []], 'the split needs no metric');

      await h.storage.transaction(function* () {
        yield op('UPDATE webhook_endpoints SET enabled = 0 WHERE project = ? AND id = ?', PROJECT, 'ep_alerts');
      });
      computed.length = 0;
      await look();
      assert.deepEqual(computed, [], 'no guardrails, and no endpoint enabled that asked');
    });

    it('queues the alerts for the endpoints that asked for them alone, with no visitor\'s id in them', async () => {
      const messages = (await queuedMessages(h.storage, PROJECT)).filter((m) => (ALERTS as readonly string[]).includes(m.type));
      assert.equal(messages.length, 6);
      for (const m of messages) {
        assert.deepEqual(m.endpoints, ['ep_alerts']);
        for (const visitor of visitors) assert.ok(!m.stored.includes(visitor), `${m.type} holds ${visitor}`);
      }
    });
  });
}
