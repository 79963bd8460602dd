// Results read one experiment's own rows (migration 16), on SQLite and PostgreSQL: its exposure rows, listed by id in
// `experiment_exposure_ids` (by results' indexer, from the queue the writes fill) and from that queue, its reported
// exposures through an index, and the links of its own people. Another experiment in the same Choose answers changes nothing; retention and erasure keep the
// table equal to the exposure rows; a person's profiles are found whole; stored exposure rows are backfilled.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ProjectRef } from '../../../server/config/config-store.js';
import type { ExperienceConfig, MetricConfig, ProjectConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { sweepProject } from '../../../server/privacy/retention.js';
import { experimentResultsProgram } from '../../../server/results/experiment-results.js';
import { exposedUnitsProgram } from '../../../server/results/exposed-units.js';
import { INDEX_EXPOSURES } from '../../../server/results/exposure-indexer.js';
import { experimentPairs } from '../../../server/results/exposure-pairs.js';
import { personGraphProgram } from '../../../server/results/person-graph.js';
import { op, type SqlOp, type SqlProgram, type SqlResult, type SqlValue } from '../../../server/storage/sql-program.js';
import type { Storage } from '../../../server/storage/storage.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from '../helpers/events.js';
import { migrateUpTo } from '../helpers/migrate-up-to.js';
import { DRIVERS, type TestDatabase } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const DAY = 86_400_000;
const ADMIN = { authorization: 'Bearer adm1.s3cret' };

const experiment = (name: string): ExperienceConfig & { variations: NonNullable<ExperienceConfig['variations']> } => ({
  name, variations: [{ name: 'control', weight: 50, body: {} }, { name: 'bold', weight: 50, body: {} }],
});

const METRICS: MetricConfig[] = [
  { name: 'purchase', event: 'Product ordered', type: 'binomial' },
  { name: 'orders', event: 'Product ordered', type: 'count' },
  { name: 'revenue', event: 'Product ordered', type: 'sum', value: 'price' },
];

/** Projects of their own per test (each stands alone): shop and blog for the comparison, kept, linked. */
const PROJECTS = ['shop', 'blog', 'kept', 'linked', 'raced'] as const;
type Project = (typeof PROJECTS)[number];

function config(): ServiceConfigFile {
  const file = testConfig();
  const acme = file.organizations.acme!;
  for (const name of PROJECTS) {
    acme.projects[name] = {
      ...acme.projects[name], apiKeys: [`srv${name}.k`], writeKeys: [`web${name}.k`], sources: ['web'],
      experiences: [experiment('alpha'), experiment('beta')], metrics: METRICS, limits: { writeKeyPerSecond: 1_000_000 },
    };
  }
  acme.adminKeys = ['adm1.s3cret'];
  return file;
}

/** An experiment pair of an exposure row, as results read it through the lists of `experiment_exposure_ids`. */
interface Listed {
  project: string;
  experience: string;
  id: number;
  profileId: string;
  variation: string;
  device: string;
  ts: number;
}

/** Every listed pair (of `project`, or of all), each list's ids looked up in `exposures` (a row gone is no pair). */
async function listedPairs(storage: Storage, project?: string): Promise<Listed[]> {
  const lists = await storage.run(function* () {
    return (yield op(`SELECT project, experience, ids FROM experiment_exposure_ids${project ? ' WHERE project = ?' : ''}`, ...(project ? [project] : []))).rows;
  });
  const out: Listed[] = [];
  for (const list of lists) {
    for (const id of JSON.parse(String(list.ids)) as number[]) {
      const [row] = await storage.run(function* () {
        return (yield op('SELECT * FROM exposures WHERE id = ?', id)).rows;
      });
      const variation = row === undefined ? undefined : experimentPairs(String(row.choices)).get(String(list.experience));
      if (row === undefined || variation === undefined) continue;
      out.push({
        project: String(list.project), experience: String(list.experience), id, profileId: String(row.profile_id), variation,
        device: String(row.device), ts: Number(row.ts),
      });
    }
  }
  return out;
}

/** The pairs the lists should give for a project's exposure rows: the first pair of a name, with a variation. */
function expectedPairs(exposures: Record<string, unknown>[]): string[] {
  const out: string[] = [];
  for (const row of exposures) {
    const seen = new Set<string>();
    for (const [name, variation] of JSON.parse(String(row.choices)) as [string, string | null][]) {
      if (seen.has(name)) continue;
      seen.add(name);
      if (variation !== null) out.push(`${name}/${Number(row.id)}/${String(row.profile_id)}/${variation}/${String(row.device)}/${Number(row.ts)}`);
    }
  }
  return out.sort();
}

for (const driver of DRIVERS) {
  describe(`results of one experiment (${driver.name})`, () => {
    let clock = Date.parse('2026-11-01T00:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock }));

    async function send(app: FastifyInstance, url: string, payload: unknown, headers: Record<string, string>) {
      const res = await app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
      assert.ok(res.statusCode < 300, `${url}: ${res.statusCode} ${res.body}`);
      return res.json() as Record<string, unknown>;
    }
    const choose = (project: Project, profileId: string, names: string[]) => send(h.app, `/v1/acme/projects/${project}/optimization/choose-api`, {
      identification: { sourceId: 'web', profileId }, names, device: 'mobile', sessionId: `s-${profileId}`,
    }, { authorization: basic(`web${project}.k`) });
    const track = (project: Project, batch: ServiceEvent[]) => send(h.app, `/v1/acme/projects/${project}/sources/web/track`, { batch }, {
      authorization: basic(`web${project}.k`),
    });
    async function results(project: Project, name: string): Promise<{ units: number; metrics: { name: string; variations: { total: number }[] }[] }> {
      const res = await h.app.inject({ method: 'GET', url: `/v1/acme/projects/${project}/experiences/${name}/results?apiKey=srv${project}.k` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { units: number; metrics: { name: string; variations: { total: number }[] }[] };
    }
    const total = (answer: Awaited<ReturnType<typeof results>>, metric: string) =>
      answer.metrics.find((m) => m.name === metric)!.variations.reduce((a, v) => a + v.total, 0);
    const at = (ms: number) => new Date(ms).toISOString();
    const order = (profileId: string, price: number) => makeEvent({ type: 'track', name: 'Product ordered', profileId, timestamp: at(clock), data: { price } });
    const viewed = (profileId: string, experience: string, variation: string) =>
      makeEvent({ type: 'track', name: 'Experiment Viewed', profileId, timestamp: at(clock), data: { experience, variation } });
    const identify = (profileId: string, userId: string) => makeEvent({ type: 'identify', name: 'identify', profileId, userId, timestamp: at(clock) });
    const rows = (sql: string, ...params: SqlValue[]) => h.storage.run(function* () {
      return (yield op(sql, ...params)).rows;
    });
    /** The project's listed pairs as expectedPairs writes them. */
    async function pairs(project: string): Promise<string[]> {
      return (await listedPairs(h.storage, project)).map((r) => `${r.experience}/${r.id}/${r.profileId}/${r.variation}/${r.device}/${r.ts}`).sort();
    }
    /** Once the indexer has run (as a node's does every second), the lists give exactly the rows' pairs. */
    async function agrees(project: string): Promise<void> {
      while ((await h.storage.place(INDEX_EXPOSURES, 5000)).more);
      assert.deepEqual(await rows('SELECT * FROM exposures_unindexed'), []);
      assert.deepEqual(await pairs(project), expectedPairs(await rows('SELECT * FROM exposures WHERE project = ?', project)));
    }

    it("counts an experiment the same beside another in the same Choose answers and the other's reported exposures", async () => {
      const people = Array.from({ length: 12 }, (_, i) => `a-${i}`);
      for (const p of people) {
        await choose('shop', p, ['alpha', 'beta']);
        await choose('blog', p, ['alpha']);
      }
      for (let i = 0; i < 5; i++) await choose('shop', `b-${i}`, ['beta']);
      clock += 60_000;
      const common = [
        ...['seen-0', 'seen-1', 'seen-2'].map((p) => viewed(p, 'alpha', 'bold')),
        ...people.filter((_, i) => i % 2 === 0).map((p) => order(p, 10)), order('seen-1', 7),
      ];
      await track('blog', common);
      await track('shop', [
        ...common, ...Array.from({ length: 4 }, (_, i) => viewed(`bv-${i}`, 'beta', 'control')), viewed('a-1', 'beta', 'bold'),
        order('b-0', 50), order('bv-0', 9),
      ]);
      const inShop = await results('shop', 'alpha');
      assert.deepEqual(inShop, await results('blog', 'alpha'));
      assert.equal(inShop.units, 15);
      assert.equal(total(inShop, 'purchase'), 7);
      assert.equal(total(inShop, 'revenue'), 67);
      // Beta's own answer counts its own people (and a-1 only if it saw one variation).
      assert.ok((await results('shop', 'beta')).units >= 12 + 5 + 4 - 1);
      await agrees('acme/shop');
      await agrees('acme/blog');
      // Read before from the queue of rows not indexed yet, now from the index: the same answer.
      assert.deepEqual(await results('shop', 'alpha'), inShop);
    });

    it('finds every exposure when the indexer lists some between its reads, each read seeing the database as it is then', async () => {
      for (let i = 0; i < 10; i++) await choose('raced', `r-${i}`, ['alpha']);
      // Each read on its own (as PostgreSQL reads outside a transaction), and after the first, a chunk of the indexer.
      const program: SqlProgram<{ units: { variation: Int32Array } }> = exposedUnitsProgram('acme/raced', 'alpha', ['control', 'bold'], {});
      let step = program.next();
      for (let reads = 0; !step.done; reads++) {
        const read: SqlOp = step.value;
        const answer = await h.storage.run(function* (): SqlProgram<SqlResult> {
          return yield read;
        });
        if (reads === 0) assert.equal((await h.storage.place(INDEX_EXPOSURES, 5000)).rows, 10);
        step = program.next(answer);
      }
      assert.equal(step.value.units.variation.length, 10);
    });

    it('keeps the table equal to the exposure rows when retention takes an experiment out and an erasure removes a person', async () => {
      for (let i = 0; i < 8; i++) await choose('kept', `k-${i}`, ['alpha', 'beta']);
      for (let i = 8; i < 10; i++) await choose('kept', `k-${i}`, ['beta']);
      await choose('kept', 'k-erased', ['alpha', 'beta']);
      clock += 60_000;
      await track('kept', [identify('k-erased', 'k-user'), identify('k-erased-2', 'k-user')]);
      await choose('kept', 'k-erased-2', ['alpha']);
      clock += 60_000;
      await track('kept', [order('k-0', 5), order('k-erased', 8), order('k-erased-2', 4)]);
      const before = await results('kept', 'alpha');
      assert.equal(before.units, 9);
      assert.equal(total(before, 'revenue'), 17);
      await agrees('acme/kept');

      const stopped: Partial<ProjectConfig> = { experiences: [experiment('alpha'), { ...experiment('beta'), status: 'stopped' }], retention: { exposuresDays: 1 } };
      const ref: ProjectRef = { org: 'acme', name: 'kept', key: 'acme/kept', config: { apiKeys: [], writeKeys: [], sources: ['web'], ...stopped } };
      await sweepProject(h.storage, ref, clock);
      const swept = await sweepProject(h.storage, ref, clock + 2 * DAY);
      assert.deepEqual([swept.exposures, swept.exposuresRewritten], [2, 9]);
      await agrees('acme/kept');
      assert.deepEqual((await listedPairs(h.storage, 'acme/kept')).filter((r) => r.experience === 'beta'), []);
      assert.deepEqual(await results('kept', 'alpha'), before);
      assert.equal((await results('kept', 'beta')).units, 0);

      const created = await h.app.inject({
        method: 'POST', url: '/v1/acme/projects/kept/privacy/erasures', headers: ADMIN, payload: { profileId: 'k-erased', sourceId: 'web' },
      });
      assert.equal(created.statusCode, 202, created.body);
      const { id } = created.json() as { id: string };
      for (let polls = 0; ; polls++) {
        assert.ok(polls < 2000, 'the erasure did not finish');
        clock += 1000;
        const res = await h.app.inject({ method: 'GET', url: `/v1/acme/projects/kept/privacy/erasures/${id}`, headers: ADMIN });
        if ((res.json() as { status: string }).status === 'done') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await agrees('acme/kept');
      assert.deepEqual((await listedPairs(h.storage, 'acme/kept')).filter((r) => r.profileId.startsWith('k-erased')), []);
      const afterErasure = await results('kept', 'alpha');
      assert.equal(afterErasure.units, 8);
      assert.equal(total(afterErasure, 'revenue'), 5);
    });

    it("counts a person linked across profiles once, with every profile's events, whether the links are read whole or followed", async () => {
      await choose('linked', 'l-phone', ['alpha']);
      for (let i = 0; i < 6; i++) await choose('linked', `m-${i}`, ['alpha']);
      clock += 60_000;
      // l-phone is l-user; l-laptop was l-old and aliased l-old to l-user; l-tablet is l-old.
      await track('linked', [
        identify('l-phone', 'l-user'), identify('l-laptop', 'l-old'),
        makeEvent({ type: 'alias', name: 'alias', profileId: 'l-laptop', userId: 'l-user', anotherUserId: 'l-old', timestamp: at(clock) }),
        identify('l-tablet', 'l-old'),
        order('l-phone', 1), order('l-laptop', 2), order('l-tablet', 4), order('m-0', 8),
      ]);
      // Fewer links (4) than exposed profiles (7): the project's links are read whole.
      const whole = await results('linked', 'alpha');
      assert.equal(whole.units, 7);
      assert.equal(total(whole, 'purchase'), 2);
      assert.equal(total(whole, 'orders'), 4);
      assert.equal(total(whole, 'revenue'), 15);
      // Many more links than exposed profiles: the people's links are followed from the exposed profiles.
      await track('linked', Array.from({ length: 40 }, (_, i) => identify(`x-${i}`, `xu-${i % 20}`)));
      assert.deepEqual(await results('linked', 'alpha'), whole);
      const personOf = await h.storage.run(() => personGraphProgram('acme/linked', ['l-phone', 'm-1']));
      assert.equal(personOf('l-tablet'), personOf('l-phone'));
      assert.equal(personOf('l-laptop'), personOf('l-phone'));
      assert.notEqual(personOf('m-1'), personOf('l-phone'));
    });
  });
}

for (const driver of DRIVERS) {
  describe(`migration 16 (${driver.name})`, () => {
    let db: TestDatabase;
    let storage: Storage | undefined;
    before(async () => {
      db = await driver.create();
    });
    after(async () => {
      await storage?.close();
      await db.destroy();
    });

    it("backfills the stored exposure rows' experiment pairs, and results read them with the stored reports and links", async () => {
      const viewed = JSON.stringify({ type: 'track', name: 'Experiment Viewed', data: { experience: 'alpha', variation: 'control' } });
      await (await migrateUpTo(db, 15))(`
        INSERT INTO exposures (project, profile_id, session_id, device, ts, choice_count, choices) VALUES
          ('acme/shop', 'p1', 's1', 'mobile', 1000, 3, '[["alpha","bold"],["feed",null],["beta","control"]]'),
          ('acme/shop', 'p2', NULL, NULL, 2000, 2, '[["alpha",null],["alpha","control"]]'),
          ('acme/shop', 'p3', NULL, 'desktop', 3000, 2, '[["beta","bold"],["beta","control"]]'),
          ('acme/blog', 'p1', NULL, NULL, 4000, 1, '[["alpha","control"]]');
        INSERT INTO events (project, event_id, source_id, type, name, profile_id, session_id, page_id, ts, received_at, payload)
          VALUES ('acme/shop', 'e1', 'web', 'track', 'Experiment Viewed', 'p4', 's', 'p', 5000, 5000, '${viewed}');
        INSERT INTO person_links (project, profile_id, user_id, other_user_id, created_at) VALUES
          ('acme/shop', 'p4', 'u1', '', 1), ('acme/shop', 'p5', 'u1', '', 1);`);
      storage = await db.open();
      const all = async () => (await listedPairs(storage!)).map((r) => `${r.project}/${r.experience}/${r.profileId}/${r.variation}/${r.ts}`).sort();
      // A pair without a variation is no exposure; a name twice in a row (no Choose answer has one) keeps its first
      // pair with a variation.
      assert.deepEqual(await all(), [
        'acme/blog/alpha/p1/control/4000', 'acme/shop/alpha/p1/bold/1000', 'acme/shop/alpha/p2/control/2000',
        'acme/shop/beta/p1/control/1000', 'acme/shop/beta/p3/bold/3000',
      ]);
      const alpha = experiment('alpha');
      const answer = await storage.run(() => experimentResultsProgram('acme/shop', alpha, { metrics: [], counted: [], roles: new Map() }, { phase: 1, phases: [] }));
      assert.deepEqual([answer.units, answer.variations.map((v) => v.units)], [3, [2, 1]]);
      // Rows written after the migration are queued; results read them from the queue until the indexer adds them.
      await storage.transaction(function* () {
        yield op("INSERT INTO exposures (project, profile_id, session_id, device, ts, choice_count, choices) VALUES ('acme/shop', 'p5', NULL, NULL, 6000, 1, '[[\"alpha\",\"bold\"]]')");
      });
      assert.deepEqual((await all()).filter((r) => r.includes('/p5/')), []);
      // p5 is p4's person (u1), who saw control first: now in two variations.
      const queued = await storage.run(() => experimentResultsProgram('acme/shop', alpha, { metrics: [], counted: [], roles: new Map() }, { phase: 1, phases: [] }));
      assert.deepEqual([queued.units, queued.multipleExposures], [2, 1]);
      assert.deepEqual(await storage.place(INDEX_EXPOSURES, 5000), { rows: 1, more: false });
      assert.deepEqual((await all()).filter((r) => r.includes('/p5/')), ['acme/shop/alpha/p5/bold/6000']);
      const indexed = await storage.run(() => experimentResultsProgram('acme/shop', alpha, { metrics: [], counted: [], roles: new Map() }, { phase: 1, phases: [] }));
      assert.deepEqual(indexed, queued);
    });
  });
}
