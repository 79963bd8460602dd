// A first visit (ChooseService.firstVisit): an answer built as if the profile were new, stored and checked in one
// write (firstVisitProgram). Both insert forms on SQLite and PostgreSQL, then the Choose API when an assumption fails.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssignmentInput } from '../../../server/choose/assignment-programs.js';
import { chooseStore } from '../../../server/choose/choose-store.js';
import { exposureSetParams, type ExposureSet } from '../../../server/choose/exposure-programs.js';
import { firstVisitProgram, type FirstVisitOutcome } from '../../../server/choose/first-visit-programs.js';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { ingestBatch } from '../../../server/programs.js';
import { op } from '../../../server/storage/sql-program.js';
import type { Storage } from '../../../server/storage/storage.js';
import { makeEvent } from '../helpers/events.js';
import { firstAssignment, getAssignment, readExposures } from '../helpers/stored-rows.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { useApp, useStorage } from '../helpers/use-test-app.js';

const P = 'acme/shop';

const input = (experience: string, unit: string, variation: string): AssignmentInput => ({ project: P, experience, unit, variation, hashVersion: 2 });

const exposuresOf = (profileId: string, choices: ExposureSet['choices']): ExposureSet => ({
  project: P, profileId, sessionId: `${profileId}-s`, device: 'desktop', time: 1_750_000_000_000, choices,
});

/** The write as a program of the caller's transaction, or as the Choose store has the storage place it. */
type Store = (storage: Storage, profileId: string, inputs: AssignmentInput[], exposures: ExposureSet | null) => Promise<FirstVisitOutcome>;
const STORES: { name: string; store: Store }[] = [
  {
    name: 'in a transaction',
    store: (storage, profileId, inputs, exposures) => {
      const now = Date.now();
      const row = exposures === null ? null : exposureSetParams(exposures, now);
      return storage.transaction(() => firstVisitProgram({ project: P, profileId, targeting: true }, inputs, row, now), { durability: 'commit' });
    },
  },
  {
    name: 'placed by the storage',
    store: (storage, profileId, assignments, exposures) => chooseStore(storage).storeFirstVisit({ project: P, profileId, targeting: true, assignments, exposures }),
  },
];

async function exposuresFor(storage: Storage, profileId: string) {
  return (await readExposures(storage, P)).filter((e) => e.profileId === profileId).map((e) => [e.experience, e.variation]);
}

for (const driver of DRIVERS) {
  for (const { name, store } of STORES) {
    describe(`firstVisitProgram, ${name} (${driver.name})`, () => {
      const h = useStorage(driver);
      const id = (base: string) => `${base}-${name.length}`;

      it('a profile nobody has: its first assignments and its exposures are stored', async () => {
        const profileId = id('fv-new');
        const outcome = await store(h.storage, profileId, [input('e1', profileId, 'a'), input('e2', `${profileId}-s`, 'x')],
          exposuresOf(profileId, [{ name: 'e1', variation: 'a' }, { name: 'e2', variation: 'x' }, { name: 'note', variation: null }]));
        assert.deepEqual(outcome, { kind: 'answered', created: 2 });
        assert.equal((await getAssignment(h.storage, P, 'e1', profileId))?.variation, 'a');
        assert.equal((await getAssignment(h.storage, P, 'e2', `${profileId}-s`))?.variation, 'x');
        assert.deepEqual(await exposuresFor(h.storage, profileId), [['e1', 'a'], ['e2', 'x'], ['note', null]]);
      });

      it('a profile the identity graph holds: nothing is written', async () => {
        const profileId = id('fv-known');
        await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'track', name: 'Seen', profileId, userAttributes: { plan: 'pro' } })]);
        const outcome = await store(h.storage, profileId, [input('e1', profileId, 'a')], exposuresOf(profileId, [{ name: 'e1', variation: 'a' }]));
        assert.deepEqual(outcome, { kind: 'known' });
        assert.equal(await getAssignment(h.storage, P, 'e1', profileId), null);
        assert.deepEqual(await exposuresFor(h.storage, profileId), []);
      });

      it('without targeting only a user link makes a profile known', async () => {
        const withAttributes = id('fv-attrs');
        const linked = id('fv-linked');
        await ingestBatch(h.storage, P, 'web', [
          makeEvent({ type: 'track', name: 'Seen', profileId: withAttributes, userAttributes: { plan: 'pro' } }),
          makeEvent({ type: 'identify', name: 'Identify', profileId: linked, userId: `${linked}-user` }),
        ]);
        const untargeted = (profileId: string) => h.storage.transaction(
          () => firstVisitProgram({ project: P, profileId, targeting: false }, [input('e1', profileId, 'a')], null, Date.now()),
          { durability: 'commit' },
        );
        assert.deepEqual(await untargeted(withAttributes), { kind: 'answered', created: 1 });
        assert.deepEqual(await untargeted(linked), { kind: 'known' });
        assert.equal(await getAssignment(h.storage, P, 'e1', linked), null);
      });

      it('a unit already assigned another variation: the stored rows come back, the new ones are stored, no exposures', async () => {
        const profileId = id('fv-differs');
        await firstAssignment(h.storage, input('e1', profileId, 'b'));
        const outcome = await store(h.storage, profileId, [input('e1', profileId, 'a'), input('e2', profileId, 'x')],
          exposuresOf(profileId, [{ name: 'e1', variation: 'a' }, { name: 'e2', variation: 'x' }]));
        assert.equal(outcome.kind, 'differs');
        assert.deepEqual(outcome.kind === 'differs' && outcome.assignments.map((a) => [a.experience, a.variation, a.created]), [
          ['e1', 'b', false], ['e2', 'x', true],
        ]);
        assert.equal((await getAssignment(h.storage, P, 'e2', profileId))?.variation, 'x');
        assert.deepEqual(await exposuresFor(h.storage, profileId), []);
      });

      it('a unit already assigned the same variation (a concurrent request): answered, counted as not created', async () => {
        const profileId = id('fv-same');
        await firstAssignment(h.storage, input('e1', profileId, 'a'));
        const outcome = await store(h.storage, profileId, [input('e1', profileId, 'a'), input('e2', profileId, 'x')],
          exposuresOf(profileId, [{ name: 'e1', variation: 'a' }]));
        assert.deepEqual(outcome, { kind: 'answered', created: 1 });
        assert.deepEqual(await exposuresFor(h.storage, profileId), [['e1', 'a']]);
      });
    });
  }
}

// The Choose API when what a first visit assumed is wrong: the answer is built from what is stored.
const config = (weights: [number, number]): ServiceConfigFile => ({
  organizations: { acme: { projects: { shop: {
    apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'],
    experiences: [
      { name: 'sticky-exp', variations: [{ name: 'a', weight: weights[0], body: { v: 'a' } }, { name: 'b', weight: weights[1], body: { v: 'b' } }] },
      { name: 'vip-note', condition: { plan: 'pro' }, body: { text: 'Thanks, pro' } },
    ],
  } } } },
});
const URL = '/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret';

for (const driver of DRIVERS) {
  describe(`Choose API first visits (${driver.name})`, () => {
    // Weights 100/0: every unit nothing is stored for is proposed 'a'.
    const h = useApp(driver, { config: config([100, 0]) });
    const choose = async (profileId: string) => {
      const response = await h.app.inject({
        method: 'POST', url: URL,
        payload: { identification: { sourceId: 'web', profileId }, names: ['sticky-exp', 'vip-note'], sessionId: `${profileId}-s` },
      });
      assert.equal(response.statusCode, 200, response.body);
      return (response.json() as { choices: { name: string; variation?: string }[] }).choices;
    };

    it('a unit stored with another variation (weights changed since) is served it, and its exposure names it', async () => {
      await firstAssignment(h.storage, input('sticky-exp', 'fv-moved', 'b'));
      assert.deepEqual(await choose('fv-moved'), [{ name: 'sticky-exp', variation: 'b', body: { v: 'b' } }]);
      assert.deepEqual(await exposuresFor(h.storage, 'fv-moved'), [['sticky-exp', 'b']]);
      // Served from the caches now, the same.
      assert.deepEqual(await choose('fv-moved'), [{ name: 'sticky-exp', variation: 'b', body: { v: 'b' } }]);
      assert.deepEqual(await exposuresFor(h.storage, 'fv-moved'), [['sticky-exp', 'b']]);
    });

    it('a profile with stored attributes that nothing remembers gets its targeting, and one exposure set', async () => {
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'track', name: 'Seen', profileId: 'fv-pro', userAttributes: { plan: 'pro' } })]);
      assert.deepEqual((await choose('fv-pro')).map((c) => c.name), ['sticky-exp', 'vip-note']);
      assert.deepEqual(await exposuresFor(h.storage, 'fv-pro'), [['sticky-exp', 'a'], ['vip-note', null]]);
    });

    it('while exposures are refused, a new visitor is still answered and its first assignment stored', async () => {
      const refuse = driver.name === 'sqlite'
        ? ["CREATE TRIGGER fv_refuse BEFORE INSERT ON exposures BEGIN SELECT RAISE(ABORT, 'refused'); END"]
        : [
          "CREATE FUNCTION fv_refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$ LANGUAGE plpgsql",
          'CREATE TRIGGER fv_refuse BEFORE INSERT ON exposures FOR EACH ROW EXECUTE FUNCTION fv_refuse()',
        ];
      const allow = driver.name === 'sqlite' ? ['DROP TRIGGER fv_refuse'] : ['DROP TRIGGER fv_refuse ON exposures', 'DROP FUNCTION fv_refuse()'];
      const run = (statements: string[]) => h.storage.run(function* () {
        for (const sql of statements) yield op(sql);
      });
      await run(refuse);
      try {
        assert.deepEqual(await choose('fv-refused'), [{ name: 'sticky-exp', variation: 'a', body: { v: 'a' } }]);
        assert.equal((await getAssignment(h.storage, P, 'sticky-exp', 'fv-refused'))?.variation, 'a');
        assert.deepEqual(await exposuresFor(h.storage, 'fv-refused'), []);
      } finally {
        await run(allow);
      }
    });

    it('a new visitor: assignments and exposures stored, the repeat in its session adds nothing', async () => {
      assert.deepEqual(await choose('fv-fresh'), [{ name: 'sticky-exp', variation: 'a', body: { v: 'a' } }]);
      assert.equal((await getAssignment(h.storage, P, 'sticky-exp', 'fv-fresh'))?.variation, 'a');
      await choose('fv-fresh');
      assert.deepEqual(await exposuresFor(h.storage, 'fv-fresh'), [['sticky-exp', 'a']]);
    });
  });
}
