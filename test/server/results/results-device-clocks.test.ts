// Event times in results, on SQLite and PostgreSQL: one device's events are placed against its exposure by that
// device's own clock, whatever each batch's travel time; two devices' events by the service's clock (each batch's skew
// corrected with its sentAt). The app's clock is pinned and moved by the test, so receipt times are known.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import type { ServiceEvent } from '../../../wire/event.js';
import type { ResultsAnswer } from '../../../wire/results-answer.js';
import { makeEvent, v7 } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const BASE = '/v1/acme/projects/shop';
const BROWSER = { authorization: basic('web1.p4ss') };
const MINUTE = 60_000;


function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.metrics = [{ name: 'orders', event: 'Product ordered', type: 'count' }];
  shop.experiences = [
    ...(shop.experiences ?? []),
    ...['split', 'late'].map((name) => ({ name, variations: [{ name: 'control', weight: 50, body: {} }, { name: 'bold', weight: 50, body: {} }] })),
  ];
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  return file;
}

for (const driver of DRIVERS) {
  describe(`results on the devices' clocks (${driver.name})`, () => {
    const t0 = Date.parse('2026-11-10T12:00:00.000Z');
    let clock = t0;
    const h = useApp(driver, () => ({ config: config(), now: () => clock }));

    /**
     * One device's batch: its events made at `made` (the device's clock), sent at `sent` (the same clock), received
     * when the service's clock says `received`.
     */
    async function send(app: FastifyInstance, events: ServiceEvent[], sent: number, received: number): Promise<void> {
      clock = received;
      const res = await app.inject({
        method: 'POST', url: `${BASE}/sources/web/track`, headers: BROWSER, payload: { batch: events, sentAt: new Date(sent).toISOString() },
      });
      assert.equal(res.statusCode, 200, res.body);
    }

    const at = (ms: number): string => new Date(ms).toISOString();

    async function results(app: FastifyInstance, experience: string, query = ''): Promise<ResultsAnswer> {
      const res = await app.inject({ method: 'GET', url: `${BASE}/experiences/${experience}/results?apiKey=srv1.s3cret${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as ResultsAnswer;
    }

    it('counts an order made 50 ms after the view on the same device although the view took 900 ms to arrive, and orders two devices\' events on the service\'s clock', async () => {
      const app = h.app;
      // Device A's clock is right; device B's is 10 minutes ahead. Both are signed in as u1.
      const skew = 10 * MINUTE;
      const a = { profileId: 'device-a', sessionId: 'session-a' };
      const b = { profileId: 'device-b', sessionId: 'session-b' };
      await send(app, [makeEvent({ ...a, type: 'identify', name: 'Identify', userId: 'u1', timestamp: at(t0 - 5 * MINUTE) })], t0 - 5 * MINUTE, t0 - 5 * MINUTE);
      await send(app, [makeEvent({ ...b, type: 'identify', name: 'Identify', userId: 'u1', timestamp: at(t0 - 5 * MINUTE + skew) })],
        t0 - 5 * MINUTE + skew, t0 - 5 * MINUTE);
      const order = (device: typeof a, made: number): ServiceEvent => makeEvent({ ...device, name: 'Product ordered', timestamp: at(made) });
      // On B, a minute before the view (its clock says 9 minutes after): not counted.
      await send(app, [order(b, t0 - MINUTE + skew)], t0 - MINUTE + skew, t0 - MINUTE + 10);
      // On A, 50 ms after the view, in a batch that arrives in 5 ms: counted.
      await send(app, [order(a, t0 + 50)], t0 + 50, t0 + 55);
      // The view on A at t0, in a batch that took 900 ms (a slow mobile network): its time on the service's clock is
      // t0 + 900 ms, after the order's.
      await send(app, [makeEvent({ ...a, name: 'Experiment Viewed', timestamp: at(t0), data: { experience: 'split', variation: 'bold' } })], t0, t0 + 900);
      // On B, a minute after the view: counted.
      await send(app, [order(b, t0 + MINUTE + skew)], t0 + MINUTE + skew, t0 + MINUTE + 10);

      const answer = await results(app, 'split');
      assert.equal(answer.units, 1);
      const orders = answer.metrics.find((m) => m.name === 'orders')!.variations.find((v) => v.name === 'bold')!;
      assert.equal(orders.total, 2, 'the order 50 ms after the view on A and the one a minute after on B');
    });

    it('says new for a visitor whose device clock is 40 minutes behind, exposed a second after its id was minted', async () => {
      const app = h.app;
      const behind = 40 * MINUTE;
      const minted = t0 + 2 * MINUTE - behind;
      const visitor = { profileId: v7(minted, 7), sessionId: 'session-late-clock' };
      const viewed = makeEvent({ ...visitor, name: 'Experiment Viewed', timestamp: at(minted + 1000), data: { experience: 'late', variation: 'control' } });
      await send(app, [viewed], minted + 1000, t0 + 2 * MINUTE + 1000);
      const answer = await results(app, 'late', '&dimension=visitor');
      assert.deepEqual(answer.dimensions!.map((d) => [d.value, d.units]), [['new', 1]]);
    });
  });
}
