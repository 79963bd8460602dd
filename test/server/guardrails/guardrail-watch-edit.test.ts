// The guardrail watch against a person's edit made while it computes, on SQLite and PostgreSQL: the watch writes with
// If-Match of the version it read together with the experience before computing, so the edit wins (the stop gets
// version_conflict) and the next look judges the edited experiment. The computation is held open by a ResultsService
// wrapper that answers only once the test has made its edit; the app's clock is pinned.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ExperienceConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { GuardrailWatch } from '../../../server/guardrails/guardrail-watch.js';
import { ResultsService } from '../../../server/results/results-service.js';
import type { ServiceContext } from '../../../server/service-context.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const BASE = '/v1/acme/projects/shop';
const ADMIN = { authorization: 'Bearer adm1.s3cret' };
const BROWSER = { authorization: basic('web1.p4ss') };
const HOUR = 3_600_000;

function experiment(name: string, extra: Partial<ExperienceConfig> = {}): ExperienceConfig {
  return { name, variations: ['control', 'bold'].map((v) => ({ name: v, weight: 50, body: { v } })), ...extra };
}

function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.metrics = [
    { name: 'errors', event: 'Error shown', type: 'binomial', inverse: true },
    { name: 'refunds', event: 'Refund issued', type: 'binomial', inverse: true },
  ];
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  return file;
}

/** A ResultsService whose answers wait, once computed, until `release()`; `computed` settles when one is waiting. */
function heldResults(real: ResultsService): { results: ResultsService; computed: Promise<void>; release: () => void } {
  let computedNow = (): void => {};
  let release = (): void => {};
  const computed = new Promise<void>((resolve) => { computedNow = resolve; });
  const released = new Promise<void>((resolve) => { release = resolve; });
  const results = Object.create(real) as ResultsService;
  results.compute = async (...args: Parameters<ResultsService['compute']>) => {
    const report = await real.compute(...args);
    computedNow();
    await released;
    return report;
  };
  return { results, computed, release };
}

for (const driver of DRIVERS) {
  describe(`the guardrail watch and an edit made while it computes (${driver.name})`, () => {
    let clock = Date.parse('2026-11-01T00:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock }));

    async function put(app: FastifyInstance, item: ExperienceConfig): Promise<number> {
      const res = await app.inject({ method: 'PUT', url: `${BASE}/experiences/${item.name}`, headers: ADMIN, payload: item });
      assert.ok(res.statusCode === 200 || res.statusCode === 201, res.body);
      return res.json().version as number;
    }

    async function item(app: FastifyInstance, name: string): Promise<ExperienceConfig & { version: number }> {
      return (await app.inject({ method: 'GET', url: `${BASE}/experiences/${name}`, headers: ADMIN })).json();
    }

    /** A running experiment whose challenger shows an error to most of its people: any look would stop it. */
    async function harmed(app: FastifyInstance, name: string): Promise<void> {
      clock += HOUR;
      await put(app, experiment(name, { guardrails: ['errors'] }));
      const events: ServiceEvent[] = [];
      for (let i = 0; i < 300; i++) {
        const profileId = `${name}-${i}`;
        const res = await app.inject({
          method: 'POST', url: `${BASE}/optimization/choose-api`, headers: BROWSER,
          payload: { identification: { sourceId: 'web', profileId }, names: [name], device: 'desktop' },
        });
        const variation = (res.json() as { choices: { name: string; variation?: string }[] }).choices[0]?.variation;
        if (variation === 'bold' ? i % 5 !== 0 : i % 20 === 0) {
          events.push(makeEvent({ type: 'track', name: 'Error shown', profileId, timestamp: new Date(clock).toISOString(), data: {} }));
        }
      }
      clock += 60_000;
      const res = await app.inject({ method: 'POST', url: `${BASE}/sources/web/track`, headers: BROWSER, payload: { batch: events } });
      assert.equal(res.statusCode, 200, res.body);
    }

    function context(app: FastifyInstance): ServiceContext {
      return (app as unknown as { svc: ServiceContext }).svc;
    }

    it('keeps an edit made while the watch computes: the stop gets version_conflict, the next look judges the edit', async () => {
      const app = h.app;
      const name = `edited-${driver.name}`;
      await harmed(app, name);
      const svc = context(app);
      const held = heldResults(new ResultsService(svc.storage));
      const watch = new GuardrailWatch({ ...svc, results: held.results }, { now: () => clock });
      const looking = watch.check();
      await held.computed;
      // The person moves the guardrail to refunds, which nobody harms, while the report on errors is on its way.
      const edited = await put(app, experiment(name, { guardrails: ['refunds'], group: 'edited' }));
      held.release();
      assert.deepEqual((await looking).filter((s) => s.experience === name), [], 'the look at the older version stops nothing');
      const after = await item(app, name);
      assert.deepEqual([after.status, after.guardrails, after.group, after.version], ['running', ['refunds'], 'edited', edited]);
      const audit = await app.inject({ method: 'GET', url: `${BASE}/audit?limit=20`, headers: ADMIN });
      assert.deepEqual((audit.json().entries as { action: string; name: string }[]).filter((e) => e.name === name && e.action === 'stop'), []);

      // The next look judges the experiment as edited: refunds, not harmed; it goes on.
      const next = new GuardrailWatch({ ...svc, results: new ResultsService(svc.storage) }, { now: () => clock });
      assert.deepEqual((await next.check()).filter((s) => s.experience === name), []);
      await Promise.all([watch.close(), next.close()]);
      assert.equal((await item(app, name)).status, 'running');
    });
  });
}
