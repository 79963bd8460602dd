// An experiment as a team runs it, through the HTTP API on SQLite and PostgreSQL: the metrics it names (goals,
// secondary, guardrails), its phases (a change of weights, traffic or targeting starts one; results answer one phase
// with its own weights) and the guardrail watch that stops it when a variation harms a guardrail. The app's clock is
// pinned and moved here.
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ExperienceConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { GuardrailWatch } from '../../../server/guardrails/guardrail-watch.js';
import { ResultsService } from '../../../server/results/results-service.js';
import type { ServiceContext } from '../../../server/service-context.js';
import type { Storage } from '../../../server/storage/storage.js';
import type { ResultsAnswer } from '../../../wire/results-answer.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const BASE = '/v1/acme/projects/shop';
const ADMIN = { authorization: 'Bearer adm1.s3cret' };
const BROWSER = { authorization: basic('web1.p4ss') };
const HOUR = 3_600_000;

function experiment(name: string, weights: number[], extra: Partial<ExperienceConfig> = {}): ExperienceConfig {
  const names = ['control', 'bold', 'calm'];
  return { name, variations: weights.map((weight, i) => ({ name: names[i] as string, weight, body: { v: names[i] } })), ...extra };
}

function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.metrics = [
    { name: 'purchase', event: 'Product ordered', type: 'binomial' },
    { name: 'revenue', event: 'Product ordered', type: 'sum', value: 'price' },
    { name: 'signup', event: 'Signed up', type: 'binomial' },
    { name: 'errors', event: 'Error shown', type: 'binomial', inverse: true },
  ];
  shop.experiences = [
    ...(shop.experiences ?? []),
    experiment('from-file', [50, 50]),
    experiment('judged', [50, 50], { goals: ['revenue', 'purchase'], secondary: ['signup'], guardrails: ['errors'] }),
  ];
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  return file;
}

for (const driver of DRIVERS) {
  describe(`experiments as a team runs them (${driver.name})`, () => {
    let clock = Date.parse('2026-11-01T00:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock }));

    async function expose(app: FastifyInstance, name: string, profileId: string): Promise<string | undefined> {
      const res = await app.inject({
        method: 'POST', url: `${BASE}/optimization/choose-api`, headers: BROWSER,
        payload: { identification: { sourceId: 'web', profileId }, names: [name], device: 'desktop' },
      });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { choices: { name: string; variation?: string }[] }).choices.find((c) => c.name === name)?.variation;
    }

    async function track(app: FastifyInstance, events: ServiceEvent[]): Promise<void> {
      const res = await app.inject({ method: 'POST', url: `${BASE}/sources/web/track`, headers: BROWSER, payload: { batch: events } });
      assert.equal(res.statusCode, 200, res.body);
    }

    const event = (name: string, profileId: string, data: Record<string, unknown> = {}): ServiceEvent => makeEvent({
      type: 'track', name, profileId, timestamp: new Date(clock).toISOString(), data,
    });

    async function put(app: FastifyInstance, item: ExperienceConfig): Promise<{ statusCode: number; json(): any; body: string }> {
      return app.inject({ method: 'PUT', url: `${BASE}/experiences/${item.name}`, headers: ADMIN, payload: item });
    }

    async function results(app: FastifyInstance, name: string, query = ''): Promise<ResultsAnswer> {
      const res = await app.inject({ method: 'GET', url: `${BASE}/experiences/${name}/results?apiKey=srv1.s3cret${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as ResultsAnswer;
    }

    it('judges an experiment on the metrics it names, in their order, each with its role; others only when asked', async () => {
      const answer = await results(h.app, 'judged');
      assert.deepEqual(answer.metrics.map((m) => [m.name, m.role]), [
        ['revenue', 'goal'], ['purchase', 'goal'], ['signup', 'secondary'], ['errors', 'guardrail'],
      ]);
      const all = await results(h.app, 'from-file');
      assert.deepEqual(all.metrics.map((m) => [m.name, m.role]), [
        ['purchase', undefined], ['revenue', undefined], ['signup', undefined], ['errors', undefined],
      ]);
      const asked = await results(h.app, 'judged', '&metrics=errors,signup');
      assert.deepEqual(asked.metrics.map((m) => [m.name, m.role]), [['errors', 'guardrail'], ['signup', 'secondary']]);
    });

    it('refuses an experiment naming a metric the project lacks, or one metric twice; a metric it names cannot be deleted', async () => {
      for (const [extra, field] of [
        [{ goals: ['nope'] }, 'goals[0]'], [{ guardrails: ['purchase', 'nope'] }, 'guardrails[1]'],
        [{ goals: ['purchase'], secondary: ['purchase'] }, 'secondary[0]'], [{ goals: 'purchase' }, 'goals'],
      ] as const) {
        const res = await put(h.app, experiment('bad-metrics', [50, 50], extra as unknown as Partial<ExperienceConfig>));
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().error.code, 'invalid_config');
        assert.match(res.json().error.message, new RegExp(field.replace(/[[\]]/g, '\\$&')));
      }
      const missing = await h.app.inject({ method: 'GET', url: `${BASE}/experiences/bad-metrics`, headers: ADMIN });
      assert.equal(missing.statusCode, 404);
      const del = await h.app.inject({ method: 'DELETE', url: `${BASE}/metrics/signup`, headers: ADMIN });
      assert.equal(del.statusCode, 409, del.body);
      assert.equal(del.json().error.code, 'item_in_use');
      assert.match(del.json().error.message, /judged/);
    });

    it('starts a phase on a weight change; results answer the current phase by default, with its weights and no SRM', async () => {
      const app = h.app;
      const name = `reweighted-${driver.name}`;
      clock += HOUR;
      const created = await put(app, experiment(name, [50, 50]));
      assert.equal(created.statusCode, 201, created.body);
      const startedAt = clock;
      const first: string[] = [];
      for (let i = 0; i < 40; i++) {
        first.push(`${name}-a${i}`);
        await expose(app, name, `${name}-a${i}`);
      }
      clock += HOUR;
      // A body edit is not a phase.
      const edited = experiment(name, [50, 50]);
      edited.variations![1]!.body = { v: 'bolder' };
      assert.equal((await put(app, edited)).statusCode, 200);
      clock += HOUR;
      const changedAt = clock;
      const reweighted = await put(app, experiment(name, [10, 90]));
      assert.equal(reweighted.statusCode, 200, reweighted.body);
      clock += HOUR;
      // Phase 1's people seen again are phase 1's units; the new ones are assigned 10/90.
      for (const profile of first.slice(0, 10)) await expose(app, name, profile);
      for (let i = 0; i < 120; i++) await expose(app, name, `${name}-b${i}`);

      const current = await results(app, name);
      assert.equal(current.phase, 2);
      assert.deepEqual(current.phases, [
        { phase: 1, startedAt: new Date(startedAt).toISOString(), endedAt: new Date(changedAt).toISOString(), weights: { control: 50, bold: 50 }, version: 1, reason: 'started' },
        { phase: 2, startedAt: new Date(changedAt).toISOString(), weights: { control: 10, bold: 90 }, version: 3, reason: 'weights 50/50 → 10/90' },
      ]);
      assert.equal(current.units, 120);
      assert.deepEqual(current.variations.map((v) => v.weight), [10, 90]);
      assert.equal(current.srm.mismatch, false, JSON.stringify(current.srm));
      const old = await results(app, name, '&phase=1');
      assert.equal(old.phase, 1);
      assert.equal(old.units, 40);
      assert.deepEqual(old.variations.map((v) => v.weight), [50, 50]);
      for (const bad of ['3', '0', 'x', '1.5']) {
        const res = await app.inject({ method: 'GET', url: `${BASE}/experiences/${name}/results?apiKey=srv1.s3cret&phase=${bad}` });
        assert.equal(res.statusCode, 400, `${bad}: ${res.body}`);
        assert.equal(res.json().error.code, 'invalid_request');
      }
    });

    it('starts a phase on a change of traffic, condition, devices or namespace, with its reason; a body or metrics edit keeps it', async () => {
      const app = h.app;
      const name = `retargeted-${driver.name}`;
      clock += HOUR;
      let item = experiment(name, [50, 50]);
      assert.equal((await put(app, item)).statusCode, 201);
      const bodyEdited = experiment(name, [50, 50]).variations!.map((v) => ({ ...v, body: { v: `${v.name}, reworded` } }));
      // Each write, what it changes (undefined: the field is removed), and the reason of the phase it starts (null: none).
      const writes: [string, Partial<ExperienceConfig>, string | null][] = [
        ['a body edit', { variations: bodyEdited }, null],
        ['less traffic', { traffic: 50 }, 'traffic 100 % → 50 %'],
        ['goals named', { goals: ['purchase'] }, null],
        ['a condition', { condition: { country: 'DE' } }, 'targeting changed'],
        ['another condition', { condition: { country: { $in: ['DE', 'AT'] } } }, 'targeting changed'],
        ['devices', { devices: ['desktop'] }, 'targeting changed'],
        ['a namespace', { namespace: ['checkout', 0, 0.5] }, 'targeting changed'],
        ['the namespace\'s other half', { namespace: ['checkout', 0.5, 1] }, 'targeting changed'],
        ['the condition removed', { condition: undefined }, 'targeting changed'],
        ['weights and traffic at once', { traffic: 80, variations: experiment(name, [20, 80]).variations!.map((v, i) => ({ ...v, body: bodyEdited[i]!.body })) },
          'weights 50/50 → 20/80; traffic 50 % → 80 %'],
        ['the same write again', {}, null],
      ];
      const expected: [string, string, string | undefined, number][] = [['started', new Date(clock).toISOString(), undefined, 1]];
      let version = 1;
      for (const [what, change, reason] of writes) {
        clock += HOUR;
        item = { ...item, ...change };
        for (const [field, value] of Object.entries(change)) if (value === undefined) delete (item as unknown as Record<string, unknown>)[field];
        const res = await put(app, item);
        assert.equal(res.statusCode, 200, `${what}: ${res.body}`);
        version = res.json().version as number;
        if (reason !== null) {
          const at = new Date(clock).toISOString();
          expected[expected.length - 1]![2] = at;
          expected.push([reason, at, undefined, version]);
        }
        const { phases, phase } = await results(app, name);
        assert.deepEqual(phases.map((p) => [p.reason, p.startedAt, p.endedAt, p.version]), expected, what);
        assert.equal(phase, expected.length, what);
      }
      assert.equal(version, writes.length + 1, 'every write was stored as a new version');
      const last = (await results(app, name)).phases.at(-1)!;
      assert.deepEqual(last.weights, { control: 20, bold: 80 });
    });

    it('ends the phase on a stop and starts one on a restart; a file experiment\'s first phase runs from its first exposure', async () => {
      const app = h.app;
      clock += HOUR;
      const firstSeen = clock;
      await expose(app, 'from-file', 'file-1');
      clock += HOUR;
      const stoppedAt = clock;
      assert.equal((await put(app, experiment('from-file', [50, 50], { status: 'stopped' }))).statusCode, 200);
      clock += HOUR;
      const restartedAt = clock;
      assert.equal((await put(app, experiment('from-file', [50, 50]))).statusCode, 200);
      const answer = await results(app, 'from-file');
      assert.deepEqual(answer.phases.map((p) => [p.phase, p.startedAt, p.endedAt, p.version, p.reason]), [
        [1, new Date(firstSeen).toISOString(), new Date(stoppedAt).toISOString(), 1, 'started'],
        [2, new Date(restartedAt).toISOString(), undefined, 3, 'restarted'],
      ]);
      assert.equal(answer.phase, 2);
      assert.equal(answer.units, 0);
    });

    it('re-randomises on request: a new phase assigns everybody afresh, and each phase counts its own randomisation', async () => {
      const app = h.app;
      const name = `rerandomised-${driver.name}`;
      clock += HOUR;
      assert.equal((await put(app, experiment(name, [50, 50]))).statusCode, 201);
      const before = new Map<string, string | undefined>();
      for (let i = 0; i < 60; i++) before.set(`${name}-${i}`, await expose(app, name, `${name}-${i}`));
      clock += HOUR;
      // The service keeps the count: what a client sends back is not taken.
      const res = await app.inject({
        method: 'PUT', url: `${BASE}/experiences/${name}?rerandomize=true`, headers: ADMIN, payload: { ...experiment(name, [50, 50]), randomization: 7 },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().randomization, 1);
      clock += HOUR;
      let moved = 0;
      for (const [profile, variation] of before) if ((await expose(app, name, profile)) !== variation) moved++;
      assert.ok(moved >= 10, `only ${moved} of 60 people moved`);
      const current = await results(app, name);
      assert.equal(current.phase, 2);
      assert.equal(current.phases[1]!.reason, 're-randomised');
      assert.equal(current.units, 60, 'the people seen again count in the new randomisation');
      assert.equal(current.multipleExposures, 0);
      assert.equal((await results(app, name, '&phase=1')).units, 60);
      // An edit without the flag keeps the randomisation.
      assert.equal((await put(app, { ...experiment(name, [50, 50]), group: 'g' })).json().randomization, 1);
      for (const [query, body] of [['?rerandomize=maybe', experiment(name, [50, 50])], ['?rerandomize=true', experiment(name, [50, 50], { status: 'draft' })]] as const) {
        const refused = await app.inject({ method: 'PUT', url: `${BASE}/experiences/${name}${query}`, headers: ADMIN, payload: body });
        assert.equal(refused.statusCode, 400, refused.body);
        assert.equal(refused.json().error.code, 'invalid_request');
      }
    });

    it('warns of a sample-ratio mismatch in the current phase, and stops for one only when the experiment asks', async () => {
      const app = h.app;
      clock += HOUR;
      const names = [`srm-stop-${driver.name}`, `srm-warn-${driver.name}`];
      assert.equal((await put(app, experiment(names[0]!, [50, 50], { stopOnSrm: true }))).statusCode, 201);
      assert.equal((await put(app, experiment(names[1]!, [50, 50]))).statusCode, 201);
      // Exposures reported when shown, lopsided as a broken page would report them: 120 control, 40 bold.
      const shown = names.flatMap((name) => Array.from({ length: 160 }, (_, i) => event('Experiment Viewed', `${name}-${i}`, {
        experience: name, variation: i < 120 ? 'control' : 'bold',
      })));
      await track(app, shown);
      assert.equal((await results(app, names[0]!)).srm.mismatch, true);
      const svc = (app as unknown as { svc: ServiceContext }).svc;
      const watch = new GuardrailWatch({ ...svc, results: new ResultsService(svc.storage) }, { now: () => clock });
      const stopped = await watch.check();
      await watch.close();
      assert.deepEqual(stopped.map((s) => [s.experience, s.stop.rule]), [[names[0], 'srm']]);
      const items = await Promise.all(names.map((name) => app.inject({ method: 'GET', url: `${BASE}/experiences/${name}`, headers: ADMIN })));
      assert.deepEqual(items.map((r) => r.json().status), ['stopped', 'running']);
      assert.equal(typeof items[0]!.json().stoppedBy.srmPValue, 'number');
    });

    it('writes nothing when its results are read, harmed as they show it: the watch\'s next look is what stops it', async () => {
      const app = h.app;
      const name = `read-writes-nothing-${driver.name}`;
      clock += HOUR;
      assert.equal((await put(app, experiment(name, [50, 50], { guardrails: ['errors'] }))).statusCode, 201);
      const events: ServiceEvent[] = [];
      for (let i = 0; i < 300; i++) {
        const variation = await expose(app, name, `${name}-${i}`);
        if (variation === 'bold' ? i % 5 !== 0 : i % 20 === 0) events.push(event('Error shown', `${name}-${i}`));
      }
      await track(app, events);
      // Every transaction begun on behalf of a read (in its async context) is recorded: the service's own timers (the
      // privacy runner's polls) begin theirs outside it.
      const reads = new AsyncLocalStorage<string>();
      const begun: string[] = [];
      const storage = h.storage;
      const transaction = storage.transaction;
      storage.transaction = function (this: Storage, ...args: Parameters<Storage['transaction']>) {
        const read = reads.getStore();
        if (read !== undefined) begun.push(read);
        return transaction.apply(this, args);
      } as Storage['transaction'];
      try {
        for (const query of ['', '&phase=1', '&phase=all', `&from=${new Date(clock - HOUR).toISOString()}`]) {
          const answer = await reads.run(`results${query}`, () => results(app, name, query));
          // The current phase as a whole says what a look would do.
          if (query === '') assert.equal(answer.metrics.find((m) => m.name === 'errors')!.variations[1]!.harm?.stops, true);
        }
      } finally {
        storage.transaction = transaction;
      }
      assert.deepEqual(begun, [], 'no write begun by a read');
      const still = await app.inject({ method: 'GET', url: `${BASE}/experiences/${name}`, headers: ADMIN });
      assert.equal(still.json().status, 'running');

      const svc = (app as unknown as { svc: ServiceContext }).svc;
      const watch = new GuardrailWatch({ ...svc, results: new ResultsService(svc.storage) }, { now: () => clock });
      const stopped = await watch.check();
      await watch.close();
      assert.deepEqual(stopped.filter((s) => s.experience === name).map((s) => [s.stop.rule, s.stop.metric]), [['guardrail', 'errors']]);
      assert.equal((await app.inject({ method: 'GET', url: `${BASE}/experiences/${name}`, headers: ADMIN })).json().status, 'stopped');
    });

    it('answers a daily series: each day\'s results over the units first exposed by its end, with every day between', async () => {
      const app = h.app;
      const name = `daily-${driver.name}`;
      clock = Date.parse('2026-11-20T10:00:00.000Z');
      assert.equal((await put(app, experiment(name, [50, 50], { goals: ['purchase'] }))).statusCode, 201);
      for (let i = 0; i < 20; i++) await expose(app, name, `${name}-d1-${i}`);
      clock += 2 * 24 * HOUR;
      for (let i = 0; i < 30; i++) await expose(app, name, `${name}-d3-${i}`);
      await track(app, [event('Product ordered', `${name}-d1-0`, { price: 5 })]);
      const answer = await results(app, name, '&series=day');
      assert.deepEqual(answer.series?.map((p) => [p.date, p.units]), [['2026-11-20', 20], ['2026-11-21', 20], ['2026-11-22', 50]]);
      const last = answer.series![2]!;
      assert.equal(last.units, answer.units);
      assert.deepEqual(last.metrics[0]!.variations.map((v) => v.total), answer.metrics[0]!.variations.map((v) => v.total));
      assert.equal((await results(app, name)).series, undefined);
      const bad = await app.inject({ method: 'GET', url: `${BASE}/experiences/${name}/results?apiKey=srv1.s3cret&series=week` });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().error.code, 'invalid_request');
    });

    it('stops an experiment whose variation harms a guardrail, and says why in the audit log and the experience', async () => {
      const app = h.app;
      const name = `guarded-${driver.name}`;
      clock += HOUR;
      assert.equal((await put(app, experiment(name, [50, 50], { goals: ['purchase'], guardrails: ['errors'] }))).statusCode, 201);
      const events: ServiceEvent[] = [];
      for (let i = 0; i < 300; i++) {
        const profile = `${name}-${i}`;
        const variation = await expose(app, name, profile);
        // bold shows an error to most of its visitors; control to few.
        if (variation === 'bold' ? i % 5 !== 0 : i % 20 === 0) events.push(event('Error shown', profile));
      }
      clock += 60_000;
      await track(app, events);
      const before = await results(app, name, '&phase=1');
      const harm = before.metrics.find((m) => m.name === 'errors')!.variations[1]!.harm!;
      assert.equal(harm.harmed, true, JSON.stringify(harm));

      const svc = (app as unknown as { svc: ServiceContext }).svc;
      const watch = new GuardrailWatch({ ...svc, results: new ResultsService(svc.storage) }, { now: () => clock });
      const stopped = await watch.check();
      await watch.close();
      const ours = stopped.find((s) => s.experience === name);
      assert.ok(ours, JSON.stringify(stopped));
      assert.equal(ours.stop.rule, 'guardrail');
      assert.equal(ours.stop.metric, 'errors');
      assert.equal(ours.stop.variation, 'bold');
      // Nobody else was stopped: the file's judged experiment has no harm (no traffic).
      assert.deepEqual(stopped.map((s) => s.experience), [name]);

      const item = await app.inject({ method: 'GET', url: `${BASE}/experiences/${name}`, headers: ADMIN });
      assert.equal(item.json().status, 'stopped');
      assert.equal(item.json().stoppedBy.metric, 'errors');
      const audit = await app.inject({ method: 'GET', url: `${BASE}/audit?limit=5`, headers: ADMIN });
      const entry = (audit.json().entries as { action: string; name: string; keyId: string; after: any }[]).find((e) => e.name === name);
      assert.equal(entry?.action, 'stop');
      assert.equal(entry?.keyId, 'service');
      assert.equal(entry?.after.status, 'stopped');
      assert.equal(entry?.after.stoppedBy.metric, 'errors');
      assert.equal(typeof entry?.after.stoppedBy.pValue, 'number');
      assert.equal(await expose(app, name, `${name}-late`), undefined);
      const answer = await results(app, name);
      assert.ok(answer.phases[0]!.endedAt, 'the phase ended with the stop');

      // A restart leaves the reason behind.
      const restarted = await put(app, { ...item.json(), status: 'running' });
      assert.equal(restarted.statusCode, 200, restarted.body);
      assert.equal(restarted.json().stoppedBy, undefined);
    });
  });
}
