// Retention on SQLite and PostgreSQL: a project's old events go in batches (recent ones and other projects' stay), and
// the exposures of an experiment go once it has been ended for the configured days (rows shared with a running
// experiment keep that experiment's choice).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProjectRef } from '../../../server/config/config-store.js';
import type { ProjectConfig } from '../../../server/config/config-types.js';
import { validateConfig } from '../../../server/config/validate-config.js';
import { ConfigError } from '../../../server/config/config-error.js';
import { ingestBatch } from '../../../server/programs.js';
import { RETENTION_BATCH, RETENTION_CHUNK, sweepProject } from '../../../server/privacy/retention.js';
import { op, type SqlValue } from '../../../server/storage/sql-program.js';
import { num } from '../../../server/storage/sql-values.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { testConfig } from '../helpers/test-config.js';
import { useStorage } from '../helpers/use-test-app.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-26T12:00:00.000Z');

function project(key: string, config: Partial<ProjectConfig>): ProjectRef {
  const [org, name] = key.split('/') as [string, string];
  return { org, name, key, config: { apiKeys: [], writeKeys: [], sources: ['web'], ...config } };
}

const experiment = (name: string, status: 'running' | 'stopped') => ({
  name, status, variations: [{ name: 'a', weight: 50, body: {} }, { name: 'b', weight: 50, body: {} }],
});

for (const driver of DRIVERS) {
  describe(`retention (${driver.name})`, () => {
    const h = useStorage(driver);
    const rows = (sql: string, ...params: SqlValue[]) => h.storage.run(function* () {
      return (yield op(sql, ...params)).rows;
    });

    it('deletes events received before the project keeps them, in batches, and nothing else', async () => {
      const old = Array.from({ length: RETENTION_CHUNK + RETENTION_BATCH + 7 }, (_, i) => makeEvent({ profileId: `old-${i % 50}` }));
      const recent = Array.from({ length: 30 }, () => makeEvent({ profileId: 'recent' }));
      for (let i = 0; i < old.length; i += 500) await ingestBatch(h.storage, 'ret/shop', 'web', old.slice(i, i + 500), { receivedAt: NOW - 31 * DAY });
      await ingestBatch(h.storage, 'ret/shop', 'web', recent, { receivedAt: NOW - 29 * DAY });
      await ingestBatch(h.storage, 'ret/other', 'web', old.slice(0, 10), { receivedAt: NOW - 400 * DAY });

      const result = await sweepProject(h.storage, project('ret/shop', { retention: { eventsDays: 30 } }), NOW);
      assert.equal(result.events, old.length);
      assert.equal(num((await rows("SELECT COUNT(*) AS n FROM events WHERE project = 'ret/shop'"))[0]!.n), recent.length);
      assert.equal(num((await rows("SELECT COUNT(*) AS n FROM events WHERE project = 'ret/other'"))[0]!.n), 10);
      // A project without retention keeps everything.
      assert.equal((await sweepProject(h.storage, project('ret/other', {}), NOW)).events, 0);
    });

    it("deletes an experiment's exposures once it has been ended for the configured days", async () => {
      const insert = (choices: [string, string][]) => h.storage.transaction(function* () {
        yield op(
          'INSERT INTO exposures (project, profile_id, session_id, device, ts, choice_count, choices) VALUES (?, ?, ?, ?, ?, ?, ?)',
          'ret/exp', 'p', 's', null, NOW - 60 * DAY, choices.length, JSON.stringify(choices),
        );
      });
      await insert([['old-test', 'a']]);
      await insert([['old-test', 'b'], ['live-test', 'a']]);
      await insert([['live-test', 'b']]);
      const config = { retention: { exposuresDays: 10 }, experiences: [experiment('old-test', 'stopped'), experiment('live-test', 'running')] };

      // The first sweep sees old-test ended: its exposures are kept for 10 days from now.
      assert.deepEqual(await sweepProject(h.storage, project('ret/exp', config), NOW), { events: 0, exposures: 0, exposuresRewritten: 0 });
      assert.deepEqual(await sweepProject(h.storage, project('ret/exp', config), NOW + 9 * DAY), { events: 0, exposures: 0, exposuresRewritten: 0 });
      assert.deepEqual(await sweepProject(h.storage, project('ret/exp', config), NOW + 11 * DAY), { events: 0, exposures: 1, exposuresRewritten: 1 });
      const left = await rows("SELECT choice_count, choices FROM exposures WHERE project = 'ret/exp' ORDER BY id");
      assert.deepEqual(left.map((r) => [num(r.choice_count), JSON.parse(String(r.choices))]), [[1, [['live-test', 'a']]], [1, [['live-test', 'b']]]]);
      // Swept once: the next sweep has nothing to do; an experiment running again loses its end.
      assert.deepEqual(await sweepProject(h.storage, project('ret/exp', config), NOW + 12 * DAY), { events: 0, exposures: 0, exposuresRewritten: 0 });
      await sweepProject(h.storage, project('ret/exp', { ...config, experiences: [experiment('old-test', 'running'), experiment('live-test', 'running')] }), NOW + 13 * DAY);
      assert.deepEqual(await rows("SELECT experience, ended_at FROM experiment_lifetimes WHERE project = 'ret/exp' ORDER BY experience"), [
        { experience: 'live-test', ended_at: null }, { experience: 'old-test', ended_at: null },
      ]);
    });
  });
}

describe('retention config', () => {
  it('takes whole days from 1 to 36500 and names a bad field', () => {
    const config = (retention: unknown) => {
      const file = testConfig();
      (file.organizations.acme!.projects.shop as unknown as Record<string, unknown>).retention = retention;
      return file;
    };
    assert.doesNotThrow(() => validateConfig(config({ eventsDays: 395, exposuresDays: 90 })));
    for (const bad of [{ eventsDays: 0 }, { eventsDays: 1.5 }, { exposuresDays: '30' }, { eventsDays: 36_501 }]) {
      assert.throws(() => validateConfig(config(bad)), (error: unknown) => error instanceof ConfigError && /retention\.(eventsDays|exposuresDays): must be a whole number of days from 1 to 36500/.test(error.message));
    }
  });
});
