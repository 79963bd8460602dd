// Every event type, made to happen through the real service and delivered over HTTP, on SQLite and PostgreSQL: two
// endpoints created through the endpoints API with an admin key (one `standard`, one `slack`, each asking for every
// type) point at receivers in the test process on 127.0.0.1; an experiment starts, drifts, changes phase, wins on its
// goal and is stopped by its guardrail, another is stopped by hand, a bandit reweights, privacy requests finish and a
// feed is written. Each occurrence reaches each endpoint exactly once (counted by webhook-id and by type once the
// queue is drained), signed as the Standard Webhooks reference library verifies, its console link under the public
// URL, with no visitor's id, user id, email or secret in any body. A test event reaches its endpoint alone. The app's
// clock is pinned; its own watches are kept out of the way and the test looks through its own. No packet leaves
// 127.0.0.0/8: a hook under every socket's connect fails the test otherwise, and no host name is resolved.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { ExperienceConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { GuardrailWatch } from '../../../server/guardrails/guardrail-watch.js';
import { ResultsService } from '../../../server/results/results-service.js';
import { slackMessage } from '../../../server/webhooks/slack-message.js';
import type { WebhookDelivery } from '../../../wire/api/webhook-schema.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType, type WebhookPayload } from '../../../wire/webhook-events.js';
import { ADMIN, BASE, banditConfig, crowd, feedBandit, HOUR, MINUTE, put, read, watchOf } from '../helpers/bandit-scenario.js';
import { makeEvent, v7 } from '../helpers/events.js';
import { requestDone } from '../helpers/privacy-api.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';
import { payloadOf, queuedMessages } from '../helpers/webhook-endpoints.js';
import { until } from '../helpers/webhook-fixtures.js';
import { startReceiver, verified, type ReceivedRequest, type Receiver } from '../helpers/webhook-receiver.js';
import { loopbackConnectionsOnly } from './loopback-connections-only.js';

const guard = loopbackConnectionsOnly();
after(() => guard.restore());

const PROJECT = 'acme/shop';
const PUBLIC_URL = 'https://svc.example.com';
const CONSOLE = `${PUBLIC_URL}/admin/?organization=acme&project=shop#/`;
const BROWSER = { authorization: basic('web1.p4ss') };
const KEY = { type: 'key', name: 'adm1' };
/** When the visitors' profile ids were minted. */
const MINTED = Date.parse('2026-11-30T00:00:00.000Z');

function config(): ServiceConfigFile {
  const file = banditConfig();
  file.organizations.acme!.projects.shop!.metrics!.push({ name: 'errors', event: 'Error shown', type: 'binomial', inverse: true });
  return file;
}

function experiment(name: string, weights: [number, number], extra: Partial<ExperienceConfig> = {}): ExperienceConfig {
  return { name, variations: [{ name: 'control', weight: weights[0], body: { v: 'control' } }, { name: 'bold', weight: weights[1], body: { v: 'bold' } }], ...extra };
}

/** An endpoint as the POST answered it: its id and its secret, shown that once. */
interface Created {
  id: string;
  secret: string;
}

/** The requests a receiver got, by webhook-id. */
function byWebhookId(requests: readonly ReceivedRequest[]): Map<string, ReceivedRequest[]> {
  const found = new Map<string, ReceivedRequest[]>();
  for (const request of requests) {
    const id = String(request.headers['webhook-id']);
    found.set(id, [...(found.get(id) ?? []), request]);
  }
  return found;
}

for (const driver of DRIVERS) {
  describe(`every event type delivered to endpoints made through the API (${driver.name})`, () => {
    let clock = Date.parse('2026-12-01T00:00:00.000Z');
    // The pinned clock jumps hours in a moment (the bandit's cadence): a delivery's lease outlasts the jumps, or an
    // attempt under way would look lapsed and be sent again (at least once, as after a node's death).
    const h = useApp(driver, () => ({
      config: config(), now: () => clock, banditIntervalMs: 24 * HOUR, guardrailIntervalMs: 24 * HOUR,
      webhooks: { allowLoopback: true, pollMs: 20, publicUrl: PUBLIC_URL, leaseMs: 24 * HOUR },
    }));
    let standard: Receiver;
    let slack: Receiver;
    let toStandard: Created;
    let toSlack: Created;
    /** Every visitor id, user id and address the test sends: none may be in a body. */
    const visitors: string[] = [];

    afterEach(() => assert.deepEqual(guard.refused.splice(0), [], 'connections to anywhere but 127.0.0.0/8'));

    async function create(url: string, format: 'standard' | 'slack'): Promise<Created> {
      const res = await h.app.inject({ method: 'POST', url: `${BASE}/webhooks`, headers: ADMIN, payload: { url, events: WEBHOOK_EVENT_TYPES, format } });
      assert.equal(res.statusCode, 201, res.body);
      const { id, secret } = res.json() as Created;
      assert.match(secret, /^whsec_/);
      return { id, secret };
    }

    before(async () => {
      standard = await startReceiver();
      slack = await startReceiver();
      toStandard = await create(`${standard.origin}/hooks/svc`, 'standard');
      toSlack = await create(`${slack.origin}/services/T000/B000/XXXX`, 'slack');
    });
    after(async () => {
      await standard?.close();
      await slack?.close();
    });

    async function deliveries(endpoint: Created): Promise<WebhookDelivery[]> {
      const res = await h.app.inject({ method: 'GET', url: `${BASE}/webhooks/${endpoint.id}/deliveries?limit=200`, headers: ADMIN });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { deliveries: WebhookDelivery[] }).deliveries;
    }

    /** The endpoint's log once `count` deliveries are in it and each succeeded: the queue drained for it. */
    const drained = (endpoint: Created, count: number): Promise<WebhookDelivery[]> => until(
      () => deliveries(endpoint), (d) => d.length === count && d.every((x) => x.status === 'succeeded'),
      `${count} deliveries succeeded`,
    );

    async function write(item: ExperienceConfig, status = 200): Promise<void> {
      clock += MINUTE;
      const res = await put(h.app, item);
      assert.equal(res.statusCode, status, res.body);
    }

    async function track(batch: ServiceEvent[]): Promise<void> {
      // A batch holds at most 500 events.
      for (let i = 0; i < batch.length; i += 500) {
        const res = await h.app.inject({ method: 'POST', url: `${BASE}/sources/web/track`, headers: BROWSER, payload: { batch: batch.slice(i, i + 500) } });
        assert.equal(res.statusCode, 200, res.body);
      }
    }

    /**
     * A look of the guardrail watch, as a node's would be: it stops, and tells what it found. A look that could not
     * finish (the watch logs it and carries on) fails the test with the watch's own words.
     */
    async function look(): Promise<void> {
      const svc = h.app.svc;
      const failed: string[] = [];
      const logger = {
        info: (): void => undefined,
        warn: (details: object, message: string): void => {
          if (/failed|cannot/.test(message)) failed.push(`${message} ${JSON.stringify(details)}`);
        },
      };
      const watch = new GuardrailWatch({ ...svc, results: new ResultsService(svc.storage) }, { now: () => clock, logger });
      await watch.check();
      await watch.close();
      assert.deepEqual(failed, [], 'the guardrail watch\'s look');
    }

    /** Units shown each variation (`Experiment Viewed`), out of the weights' proportion: a sample-ratio mismatch. */
    async function lopsided(name: string, shown: Record<string, number>): Promise<void> {
      const at = new Date(clock).toISOString();
      const events = Object.entries(shown).flatMap(([variation, count]) => Array.from({ length: count }, (_, i) => {
        const profileId = `${name}-shown-${variation}-${i}`;
        visitors.push(profileId);
        return makeEvent({ type: 'track', name: 'Experiment Viewed', profileId, timestamp: at, data: { experience: name, variation } });
      }));
      await track(events);
      clock += MINUTE;
    }

    /**
     * Visitors served through Choose, their profile ids minted as the SDK mints them (spread over the hash as real ones
     * are: no sample-ratio mismatch by chance): bold's buy two and a half times as often as control's, and most see an error.
     */
    async function harmfulWinner(name: string, count: number): Promise<void> {
      const events = [];
      for (let i = 0; i < count; i++) {
        const profileId = v7(MINTED, i);
        visitors.push(profileId);
        const res = await h.app.inject({
          method: 'POST', url: `${BASE}/optimization/choose-api`, headers: BROWSER,
          payload: { identification: { sourceId: 'web', profileId }, names: [name], device: 'desktop' },
        });
        const variation = (res.json() as { choices: { variation?: string }[] }).choices[0]?.variation;
        const bold = variation === 'bold';
        const timestamp = new Date(clock).toISOString();
        if (bold ? i % 2 === 0 : i % 5 === 0) events.push(makeEvent({ type: 'track', name: 'Product ordered', profileId, timestamp, data: { price: 20 } }));
        if (bold ? i % 5 !== 0 : i % 20 === 0) events.push(makeEvent({ type: 'track', name: 'Error shown', profileId, timestamp, data: {} }));
      }
      clock += MINUTE;
      await track(events);
    }

    it('delivers each occurrence of every event type once to each endpoint, signed, linked under the public URL, naming no one', async () => {
      const expected: Record<WebhookEventType, number> = Object.fromEntries(WEBHOOK_EVENT_TYPES.map((t) => [t, 0])) as Record<WebhookEventType, number>;
      const happened = (type: WebhookEventType): void => {
        expected[type] += 1;
      };

      // An experiment starts, drifts in its first phase, changes its weights, then wins on its goal while its
      // challenger harms its guardrail: one look of the watch tells the win and stops it.
      const launch = `launch-${driver.name}`;
      await write(experiment(launch, [20, 80], { goals: ['purchase'], guardrails: ['errors'] }), 201);
      happened('experiment.started');
      await lopsided(launch, { control: 120, bold: 40 });
      await look();
      happened('experiment.srm_detected');
      await write(experiment(launch, [50, 50], { goals: ['purchase'], guardrails: ['errors'] }));
      happened('experiment.phase_started');
      await harmfulWinner(launch, 300);
      await look();
      // Stopped by that look; if not, what the look saw says why.
      if ((await read(h.app, launch)).status !== 'stopped') {
        const res = await h.app.inject({ method: 'GET', url: `${BASE}/experiences/${launch}/results?metrics=purchase,errors`, headers: ADMIN });
        assert.fail(`the look did not stop ${launch}; its results: ${res.body}`);
      }
      happened('experiment.significant');
      happened('experiment.stopped');

      // Another is started and stopped by a person.
      const manual = `manual-${driver.name}`;
      await write(experiment(manual, [50, 50]), 201);
      happened('experiment.started');
      await write(experiment(manual, [50, 50], { status: 'stopped' }));
      happened('experiment.stopped');

      // A bandit draws new weights from its arms' orders.
      const bandit = `bandit-${driver.name}`;
      clock += HOUR;
      const started = clock;
      assert.equal((await put(h.app, feedBandit(bandit, {}, [50, 50]))).statusCode, 201);
      happened('experiment.started');
      visitors.push(...(await crowd(h.app, bandit, bandit, 100, clock)).keys());
      clock = started + 2 * HOUR;
      assert.deepEqual((await watchOf(h.app, () => clock).check()).map((r) => [r.experience, r.reason]), [[bandit, 'thompson']]);
      happened('bandit.reweighted');

      // A person's data exported by their address, then erased by their user id.
      const [profileId, userId, email] = [`private-visitor-${driver.name}`, `private-user-${driver.name}`, `private.person.${driver.name}@example.com`];
      visitors.push(profileId, userId, email);
      await track([makeEvent({ type: 'identify', name: 'identify', profileId, userId, timestamp: new Date(clock).toISOString() })]);
      const consent = await h.app.inject({
        method: 'POST', url: `${BASE}/consents/data`, headers: BROWSER, payload: { profileId, action: 'accept', validUntil: clock + 365 * 24 * HOUR, email },
      });
      assert.ok(consent.statusCode < 300, consent.body);
      await requestDone(h.app, 'exports', { email });
      await requestDone(h.app, 'erasures', { userId });
      happened('privacy.request_done');
      happened('privacy.request_done');

      // A feed is created.
      clock += MINUTE;
      const feed = await h.app.inject({ method: 'PUT', url: `${BASE}/feeds/7`, headers: ADMIN, payload: { strategy: 'popular' } });
      assert.equal(feed.statusCode, 201, feed.body);
      happened('feed.changed');

      // What the service queued is what happened, each type at least once.
      const messages = await queuedMessages(h.storage, PROJECT);
      const occurrences = messages.length;
      const countByType = (types: readonly string[]) => Object.fromEntries(WEBHOOK_EVENT_TYPES.map((t) => [t, types.filter((x) => x === t).length]));
      assert.deepEqual(countByType(messages.map((m) => m.type)), expected);
      assert.ok(Object.values(expected).every((n) => n > 0));
      for (const endpoint of [toStandard, toSlack]) {
        assert.deepEqual((await drained(endpoint, occurrences)).map((d) => [d.attempts, d.responseStatus]), messages.map(() => [1, 200]));
      }

      // Each message arrived once at each endpoint, under its own webhook-id, signed with that endpoint's secret.
      for (const [receiver, endpoint] of [[standard, toStandard], [slack, toSlack]] as const) {
        const received = byWebhookId(receiver.received);
        assert.deepEqual([...received.keys()].sort(), messages.map((m) => m.id).sort());
        for (const [id, requests] of received) assert.equal(requests.length, 1, `${id} arrived ${requests.length} times`);
        for (const request of receiver.received) verified(endpoint.secret, request);
      }
      const standardBodies = byWebhookId(standard.received);
      const slackBodies = byWebhookId(slack.received);
      const payloads = new Map<WebhookEventType, WebhookPayload[]>();
      for (const message of messages) {
        const payload = verified(toStandard.secret, standardBodies.get(message.id)![0]!) as WebhookPayload;
        assert.deepEqual(payload, payloadOf(message, PUBLIC_URL), message.type);
        const { organization, project, url } = payload.data;
        assert.deepEqual([organization, project], ['acme', 'shop']);
        assert.ok(url.startsWith(CONSOLE), url);
        payloads.set(message.type, [...(payloads.get(message.type) ?? []), payload]);

        // Slack's message of the same event: text and blocks, the same console link behind its button.
        const slackBody = verified(toSlack.secret, slackBodies.get(message.id)![0]!) as { text: string; blocks: object[] };
        assert.deepEqual(Object.keys(slackBody), ['text', 'blocks']);
        assert.deepEqual(slackBody, slackMessage(payload));
        assert.ok(typeof slackBody.text === 'string' && slackBody.text.endsWith('(acme/shop)'), slackBody.text);
        assert.ok(JSON.stringify(slackBody.blocks).includes(`"url":${JSON.stringify(url)}`), `${message.type}: no console link in ${JSON.stringify(slackBody.blocks)}`);
      }

      assert.deepEqual(countByType([...payloads.values()].flat().map((p) => p.type)), expected);

      // What each event said of itself.
      const data = <T extends WebhookEventType>(type: T) => (payloads.get(type) ?? []).map((p) => p.data) as Extract<WebhookPayload, { type: T }>['data'][];
      assert.deepEqual(data('experiment.started').map((d) => [d.experience, d.phase]), [[launch, 1], [manual, 1], [bandit, 1]]);
      const [srm] = data('experiment.srm_detected');
      assert.deepEqual([srm!.experience, srm!.phase, srm!.units], [launch, 1, { control: 120, bold: 40 }]);
      const [phase] = data('experiment.phase_started');
      assert.deepEqual([phase!.experience, phase!.phase, phase!.changes, phase!.by], [launch, 2, ['weights 20/80 → 50/50'], KEY]);
      const [significant] = data('experiment.significant');
      assert.deepEqual([significant!.experience, significant!.phase, significant!.metric, significant!.variation, significant!.direction],
        [launch, 2, 'purchase', 'bold', 'better']);
      const [byGuardrail, byPerson] = data('experiment.stopped');
      assert.deepEqual([byGuardrail!.experience, byGuardrail!.reason, byGuardrail!.phase, byGuardrail!.by], [launch, 'guardrail', 2, { type: 'service', name: 'svc guardrail watch' }]);
      const numbers = byGuardrail!.stoppedBy!;
      assert.deepEqual([numbers.rule, numbers.metric, numbers.variation], ['guardrail', 'errors', 'bold']);
      for (const n of [numbers.uplift, numbers.pValue, numbers.pValueAdjusted, ...numbers.ci!]) assert.equal(typeof n, 'number');
      assert.ok(numbers.uplift! > 0, JSON.stringify(numbers));
      assert.deepEqual([byPerson!.experience, byPerson!.reason, byPerson!.by], [manual, 'person', KEY]);
      const [reweighted] = data('bandit.reweighted');
      assert.deepEqual([reweighted!.experience, reweighted!.reason, Object.keys(reweighted!.probabilityBest ?? {})], [bandit, 'thompson', ['feed-1', 'feed-2']]);
      assert.deepEqual(data('privacy.request_done').map((d) => d.kind).sort(), ['erasure', 'export']);
      assert.deepEqual(data('feed.changed').map((d) => [d.feed, d.action, d.by]), [[7, 'created', KEY]]);

      // No body names a visitor, a user, an address or a secret.
      for (const request of [...standard.received, ...slack.received]) {
        for (const id of visitors) assert.ok(!request.body.includes(id), `a body holds ${id}`);
        assert.ok(!/whsec_|@example\.com/.test(request.body), request.body);
      }
    });

    it('sends a test event, signed, to the endpoint it was asked for alone', async () => {
      const res = await h.app.inject({ method: 'POST', url: `${BASE}/webhooks/${toStandard.id}/test`, headers: ADMIN });
      assert.equal(res.statusCode, 202, res.body);
      const { messageId, deliveryId } = res.json() as { messageId: string; deliveryId: number };
      const delivered = await until(() => deliveries(toStandard), (d) => d.find((x) => x.id === deliveryId)?.status === 'succeeded', 'the test delivered');
      assert.deepEqual(delivered.find((x) => x.id === deliveryId)?.type, 'webhook.test');
      const requests = byWebhookId(standard.received).get(messageId) ?? [];
      assert.equal(requests.length, 1);
      assert.deepEqual(verified(toStandard.secret, requests[0]!), {
        type: 'webhook.test', timestamp: new Date(clock).toISOString(),
        data: {
          endpoint: toStandard.id, message: 'A test event from svc: this endpoint is reachable and verifies signatures.',
          organization: 'acme', project: 'shop', url: `${CONSOLE}webhooks`,
        },
      });
      assert.ok((await deliveries(toSlack)).every((d) => d.messageId !== messageId), 'no delivery of it to the other endpoint');
      assert.equal(byWebhookId(slack.received).get(messageId), undefined);
    });
  });
}
