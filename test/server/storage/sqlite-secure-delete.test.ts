// An erased person is gone from the SQLite file itself, not only from its tables: a deleted row's bytes stay in the
// page (or on the free list) until SQLite reuses the space, so a copy of the file (a backup, a stolen disk) would still
// hold them. With secure_delete every connection overwrites what it deletes.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { makeEvent } from '../helpers/events.js';
import { requestDone, send } from '../helpers/privacy-api.js';
import { SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const PROJECT = '/v1/acme/projects/shop';
/** Distinctive, so that finding its bytes anywhere in the file can only mean the erased rows. */
const ERASED = { profileId: 'prof-erase-me-5d3a91', sessionId: 'sess-erase-me-e07b42' };
const KEPT = { profileId: 'prof-keep-me-18c6f0', sessionId: 'sess-keep-me-a94d27' };

function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.experiences = [{ name: 'hero', variations: [{ name: 'control', weight: 50, body: {} }, { name: 'bold', weight: 50, body: {} }] }];
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  return file;
}

/** How often `text` occurs, as UTF-8 (SQLite's text encoding here), in the database file and its write-ahead log. */
function occurrences(file: string, text: string): number {
  const needle = Buffer.from(text, 'utf8');
  let count = 0;
  for (const path of [file, `${file}-wal`]) {
    if (!existsSync(path)) continue;
    const bytes = readFileSync(path);
    for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) count++;
  }
  return count;
}

/**
 * Copies the whole log into the database file and empties the log. The service's own checkpoint thread may be in the
 * middle of a checkpoint of its own (SQLite then answers busy at once, without waiting), so a busy answer is tried again.
 */
async function checkpointAll(file: string): Promise<void> {
  const side = new Database(file);
  try {
    for (let tries = 0; ; tries++) {
      const [{ busy }] = side.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (busy === 0) return;
      assert.ok(tries < 500, 'the checkpoint could not finish: busy 500 times');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    side.close();
  }
}

describe('erasure on SQLite', () => {
  const h = useApp(SQLITE_DRIVER, () => ({ config: config() }));

  it("leaves none of the erased person's bytes in the database file or its log after a checkpoint", async () => {
    const { app } = h;
    for (const person of [ERASED, KEPT]) {
      await send(app, `${PROJECT}/optimization/choose-api`, { identification: { sourceId: 'web', profileId: person.profileId }, names: ['hero'], sessionId: person.sessionId });
      const batch = Array.from({ length: 8 }, () => makeEvent({ ...person, type: 'page', name: 'Home' }));
      await send(app, `${PROJECT}/sources/web/track`, { batch });
    }
    await requestDone(app, 'erasures', { profileId: ERASED.profileId, sourceId: 'web' });

    await checkpointAll(h.db.location);
    // The kept person's rows are still there: the search would find the erased ones if they were.
    assert.ok(occurrences(h.db.location, KEPT.sessionId) > 0);
    assert.equal(occurrences(h.db.location, ERASED.sessionId), 0);
  });
});
