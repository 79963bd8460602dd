// Backpressure: a node holds at most `maxPendingEvents` events accepted but not yet committed. Past it a track
// request is answered 503 `overloaded` with Retry-After and nothing of its batch is stored, so a sustained overload
// slows senders (the SDK's outbox retries) instead of growing the process's memory; what was refused and sent again
// is stored once, like any resend.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServiceEvent } from '../../src/event.js';
import { makeEvent } from './helpers/events.js';
import { DRIVERS } from './helpers/storage-drivers.js';
import { basic } from './helpers/test-config.js';
import { useApp } from './helpers/use-test-app.js';
import { listEvents } from './helpers/stored-rows.js';

const TRACK = '/v1/acme/projects/shop/sources/web/track';

for (const driver of DRIVERS) {
  describe(`ingestion backpressure (${driver.name})`, () => {
    const h = useApp(driver, { maxPendingEvents: 100 });
    const post = (batch: ServiceEvent[]) => h.app.inject({
      method: 'POST', url: TRACK, headers: { authorization: basic('web1.p4ss') }, payload: { batch },
    });

    it('refuses batches past the bound with 503 overloaded and Retry-After, storing nothing of them; a resend is stored once', async () => {
      const batches = Array.from({ length: 12 }, (_, b) => Array.from({ length: 40 }, () => makeEvent({ profileId: `bp-${driver.name}-${b}` })));
      const answers = await Promise.all(batches.map(post));
      const refused = answers.flatMap((a, i) => (a.statusCode === 503 ? [i] : []));
      const taken = answers.flatMap((a, i) => (a.statusCode === 200 ? [i] : []));
      assert.equal(refused.length + taken.length, batches.length, answers.map((a) => a.statusCode).join(' '));
      assert.ok(refused.length > 0, 'some batches are refused');
      assert.ok(taken.length >= 2, 'the bound lets two batches of 40 through');
      for (const i of refused) {
        assert.equal(answers[i]!.headers['retry-after'], '1');
        assert.equal(answers[i]!.json<{ error: { code: string } }>().error.code, 'overloaded');
        assert.equal((await listEvents(h.storage, 'acme/shop', { profileId: `bp-${driver.name}-${i}` })).length, 0);
      }
      for (const i of taken) assert.deepEqual(answers[i]!.json(), { accepted: 40, duplicates: 0 });

      // The senders retry what was refused (one at a time, as an outbox does), and everything is there once.
      for (const i of [...refused, taken[0]!]) {
        const again = await post(batches[i]!);
        assert.equal(again.statusCode, 200);
        assert.deepEqual(again.json(), i === taken[0] ? { accepted: 0, duplicates: 40 } : { accepted: 40, duplicates: 0 });
      }
      for (let b = 0; b < batches.length; b++) {
        assert.equal((await listEvents(h.storage, 'acme/shop', { profileId: `bp-${driver.name}-${b}` })).length, 40);
      }
    });

    it('takes a batch larger than the bound when nothing else is waiting', async () => {
      const batch = Array.from({ length: 150 }, () => makeEvent({ profileId: `bp-big-${driver.name}` }));
      const answer = await post(batch);
      assert.equal(answer.statusCode, 200);
      assert.deepEqual(answer.json(), { accepted: 150, duplicates: 0 });
    });
  });
}
