// Concurrent first assignments: on SQLite the Choose API's insert-if-absent writes of requests arriving together
// share one group commit (sqlite-storage.ts); on both drivers every request is answered with what is stored,
// each (experience, unit) is stored once, and two requests for one unit get the same variation. The SQLite-only
// cases make the database itself fail one request of a group (a trigger from a second connection) and check
// that the others are stored and answered, and that close() commits what is queued.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { buildApp } from '../../../server/app.js';
import type { ExperienceConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { openSqliteStorage } from '../../../server/storage/sqlite/sqlite-storage.js';
import type { Assignment, AssignmentInput } from '../../../server/choose/assignment-programs.js';
import type { Storage } from '../../../server/storage/storage.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS, type TestDatabase } from '../helpers/storage-drivers.js';
import { useSqliteWithSide } from '../helpers/use-test-app.js';
import { ingestBatch } from '../../../server/programs.js';
import { firstAssignment, firstAssignments, getAssignment, listEvents } from '../helpers/stored-rows.js';
import { SCHEMA } from '../../../server/schema.js';

const PROJECT = 'acme/shop';
const CHOOSE = '/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret';
const EXPERIMENTS = Array.from({ length: 5 }, (_, i) => `exp-${i}`);

function experiences(): ExperienceConfig[] {
  return EXPERIMENTS.map((name) => ({
    name,
    variations: [{ name: 'a', weight: 50, body: { v: 'a' } }, { name: 'b', weight: 50, body: { v: 'b' } }],
  }));
}

function config(): ServiceConfigFile {
  return {
    organizations: { acme: { projects: { shop: {
      apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'], experiences: experiences(),
    } } } },
  };
}

/** A request's first assignments for one unit: every experiment, proposing `variation`. */
function inputs(unit: string, variation = 'a'): AssignmentInput[] {
  return EXPERIMENTS.map((experience) => ({ project: PROJECT, experience, unit, variation, hashVersion: 1 }));
}

interface ChoiceJson {
  name: string;
  variation?: string;
}

function chooseBody(profileId: string): Record<string, unknown> {
  return { identification: { sourceId: 'web', profileId }, names: EXPERIMENTS };
}

/** Each experiment's stored variation for `unit` (null where nothing is stored). */
async function stored(storage: Storage, unit: string): Promise<(string | null)[]> {
  return Promise.all(EXPERIMENTS.map(async (e) => (await getAssignment(storage, PROJECT, e, unit))?.variation ?? null));
}

for (const driver of DRIVERS) {
  describe(`concurrent first assignments (${driver.name})`, () => {
    let db: TestDatabase;
    let storage: Storage;

    before(async () => {
      db = await driver.create();
      storage = await db.open();
    });
    after(async () => {
      await storage.close();
      await db.destroy();
    });

    it('stores every unit of many concurrent requests once and answers each with what is stored', async () => {
      const units = Array.from({ length: 60 }, (_, i) => `many-${i}`);
      // Proposals differ per unit so that a mixed-up answer (another request's rows) would show.
      const answers = await Promise.all(units.map((unit, i) => firstAssignments(storage, inputs(unit, i % 2 ? 'b' : 'a'))));
      for (const [i, unit] of units.entries()) {
        const answer = answers[i] as Assignment[];
        assert.deepEqual(answer.map((a) => [a.experience, a.unit, a.variation, a.created]),
          EXPERIMENTS.map((e) => [e, unit, i % 2 ? 'b' : 'a', true]));
        assert.deepEqual(await stored(storage, unit), answer.map((a) => a.variation));
      }
      // Asked again (a returning unit): nothing is created, the same rows are answered.
      const again = await Promise.all(units.map((unit) => firstAssignments(storage, inputs(unit, 'b'))));
      assert.deepEqual(again.map((r) => r.map((a) => [a.variation, a.created])), answers.map((r) => r.map((a) => [a.variation, false])));
    });

    it('gives two concurrent requests for one unit the same variations, created once', async () => {
      const results = await Promise.all([
        firstAssignments(storage, inputs('same-unit', 'a')),
        firstAssignments(storage, inputs('same-unit', 'b')),
        firstAssignment(storage, { project: PROJECT, experience: 'exp-0', unit: 'same-unit', variation: 'b', hashVersion: 1 }),
      ]);
      const [first, second, single] = results;
      assert.deepEqual(second.map((a) => a.variation), first.map((a) => a.variation));
      assert.equal(single.variation, first[0]?.variation);
      // Each pair was created by exactly one of the three calls.
      for (let i = 0; i < EXPERIMENTS.length; i++) {
        const created = [first[i]?.created, second[i]?.created, i === 0 ? single.created : false].filter(Boolean);
        assert.equal(created.length, 1, `exp-${i}`);
      }
      assert.deepEqual(await stored(storage, 'same-unit'), first.map((a) => a.variation));
    });

    it('answers a request repeating one pair, and a mix of stored and new pairs', async () => {
      await firstAssignments(storage, inputs('mixed', 'b').slice(0, 2));
      const doubled = [...inputs('mixed', 'a'), ...inputs('mixed', 'a')];
      const answer = await firstAssignments(storage, doubled);
      assert.deepEqual(answer.map((a) => a.variation), [...['b', 'b', 'a', 'a', 'a'], ...['b', 'b', 'a', 'a', 'a']]);
      assert.deepEqual(answer.slice(0, 5).map((a) => a.created), [false, false, true, true, true]);
    });

    it('answers concurrent Choose requests consistently with the stored assignments', async () => {
      const app = await buildApp({ config: config(), storage });
      try {
        // 40 new visitors, each asking twice at once, all in flight together.
        const profiles = Array.from({ length: 40 }, (_, i) => `http-${i}`);
        const responses = await Promise.all([...profiles, ...profiles].map((profileId) =>
          app.inject({ method: 'POST', url: CHOOSE, payload: chooseBody(profileId) })));
        assert.deepEqual(responses.map((r) => r.statusCode), responses.map(() => 200));
        const variations = responses.map((r) => r.json<{ choices: ChoiceJson[] }>().choices.map((c) => c.variation ?? null));
        for (const [i, profileId] of profiles.entries()) {
          assert.deepEqual(variations[i + profiles.length], variations[i], profileId);
          assert.deepEqual(await stored(storage, profileId), variations[i], profileId);
        }
      } finally {
        await app.close();
      }
    });
  });
}

describe('assignment group commit: a database error fails only its own request (sqlite)', () => {
  const h = useSqliteWithSide();

  // ABORT undoes the failing statement (the request's savepoint is rolled back); ROLLBACK ends the whole shared
  // transaction, which the group answers by retrying each write alone.
  for (const raise of ['ABORT', 'ROLLBACK'] as const) {
    describe(`RAISE(${raise})`, () => {
      beforeEach(() => {
        h.side.exec(`CREATE TRIGGER poison BEFORE INSERT ON assignments WHEN NEW.unit = 'poison-${raise}'
          BEGIN SELECT RAISE(${raise}, 'poisoned assignment'); END`);
      });
      afterEach(() => {
        h.side.exec('DROP TRIGGER poison');
      });

      it('stores and answers the other requests of the group, ingestion included', async () => {
        const outcomes = await Promise.allSettled([
          firstAssignments(h.storage, inputs(`ok1-${raise}`)),
          // Its first rows are valid: none of them may be kept.
          firstAssignments(h.storage, [...inputs(`bad-${raise}`), ...inputs(`poison-${raise}`)]),
          ingestBatch(h.storage, PROJECT, 'web', [makeEvent({ profileId: `ev-${raise}` })]),
          firstAssignments(h.storage, inputs(`ok2-${raise}`, 'b')),
        ]);
        assert.equal(outcomes[0]?.status, 'fulfilled');
        assert.equal(outcomes[1]?.status, 'rejected');
        assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /poisoned assignment/);
        assert.deepEqual(outcomes[2], { status: 'fulfilled', value: { accepted: 1, duplicates: 0, identityChanged: false, handedOn: 0 } });
        assert.equal(outcomes[3]?.status, 'fulfilled');
        assert.deepEqual(await stored(h.storage, `ok1-${raise}`), EXPERIMENTS.map(() => 'a'));
        assert.deepEqual(await stored(h.storage, `ok2-${raise}`), EXPERIMENTS.map(() => 'b'));
        assert.deepEqual(await stored(h.storage, `bad-${raise}`), EXPERIMENTS.map(() => null));
        assert.equal((await listEvents(h.storage, PROJECT, { profileId: `ev-${raise}` })).length, 1);
      });

      it('answers the failed Choose request with 503 and the others with 200', async () => {
        const app = await buildApp({ config: config(), storage: h.storage });
        try {
          const post = (profileId: string) => app.inject({ method: 'POST', url: CHOOSE, payload: chooseBody(profileId) });
          const responses = await Promise.all([post(`http-ok1-${raise}`), post(`poison-${raise}`), post(`http-ok2-${raise}`)]);
          assert.deepEqual(responses.map((r) => r.statusCode), [200, 503, 200]);
          assert.equal(responses[1]?.json<{ error: { code: string } }>().error.code, 'storage_unavailable');
          for (const [i, profileId] of [[0, `http-ok1-${raise}`], [2, `http-ok2-${raise}`]] as const) {
            const variations = responses[i]?.json<{ choices: ChoiceJson[] }>().choices.map((c) => c.variation ?? null);
            assert.deepEqual(await stored(h.storage, profileId), variations);
          }
        } finally {
          await app.close();
        }
      });
    });
  }
});

describe('assignment group commit: close() commits what is queued (sqlite)', () => {
  it('answers and stores first assignments queued when close() is called', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-assign-close-'));
    try {
      const file = join(dir, 'svc.db');
      const storage = await openSqliteStorage(file, SCHEMA);
      // Not awaited before close(): both are still waiting for their group commit when it is called.
      const queued = [firstAssignments(storage, inputs('drain-1')), firstAssignments(storage, inputs('drain-2', 'b'))];
      await storage.close();
      const answers = await Promise.all(queued);
      assert.deepEqual(answers.map((r) => r.map((a) => a.variation)), [EXPERIMENTS.map(() => 'a'), EXPERIMENTS.map(() => 'b')]);
      const reopened = await openSqliteStorage(file, SCHEMA);
      try {
        assert.deepEqual(await stored(reopened, 'drain-1'), EXPERIMENTS.map(() => 'a'));
        assert.deepEqual(await stored(reopened, 'drain-2'), EXPERIMENTS.map(() => 'b'));
      } finally {
        await reopened.close();
      }
      // After close, a new request fails rather than answering an unstored assignment.
      await assert.rejects(firstAssignments(storage, inputs('drain-3')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
