// Webhooks as a receiver gets them: once, signed (checked by the Standard Webhooks reference library), with the
// contract's headers and body in both formats; retried with the same webhook-id until a 2xx; never following a
// redirect; given up after `retryForMs`, the endpoint failing that long disabled with the audit saying so. Real
// receivers on 127.0.0.1, the real service on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { op } from '../../../server/storage/sql-program.js';
import { slackMessage } from '../../../server/webhooks/slack-message.js';
import { consolePath, newMessageId, queueDelivery } from '../../../server/webhooks/webhook-outbox.js';
import type { WebhookPayload } from '../../../wire/webhook-events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { useApp } from '../helpers/use-test-app.js';
import {
  attemptsOf, deliveriesOf, emitFeedChanged, endpointAudit, endpointRow, insertEndpoint, until, type TestEndpoint,
} from '../helpers/webhook-fixtures.js';
import { startReceiver, verified, type Receiver } from '../helpers/webhook-receiver.js';

const PUBLIC_URL = 'https://svc.example.com';

/** Runs `test` with receivers it starts, closed after it whatever happens. */
async function withReceivers(count: number, answer: Parameters<typeof startReceiver>[0], test: (receivers: Receiver[]) => Promise<void>): Promise<void> {
  const receivers = await Promise.all(Array.from({ length: count }, () => startReceiver(answer)));
  try {
    await test(receivers);
  } finally {
    await Promise.all(receivers.map((r) => r.close()));
  }
}

for (const driver of DRIVERS) {
  describe(`webhook delivery (${driver.name})`, () => {
    const h = useApp(driver, { webhooks: { allowLoopback: true, pollMs: 20, firstRetryMs: 20, publicUrl: PUBLIC_URL } });
    const settled = (endpoint: TestEndpoint) => until(() => deliveriesOf(h.storage, endpoint), (d) => d.length > 0 && d.every((x) => x.status !== 'pending'), 'deliveries settled');

    it('delivers an event once to each endpoint, signed, with the headers and the body of its format', async () => {
      await withReceivers(2, () => 204, async ([standard, slack]) => {
        const toStandard = await insertEndpoint(h.storage, { url: `${standard!.origin}/hooks/svc?team=growth` });
        const toSlack = await insertEndpoint(h.storage, { url: `${slack!.origin}/services/T0/B0/x`, format: 'slack' });
        const at = Date.parse('2026-03-01T08:00:00.000Z');
        const messageId = await emitFeedChanged(h.storage, 'homepage', at);
        for (const endpoint of [toStandard, toSlack]) {
          assert.deepEqual((await settled(endpoint)).map((d) => [d.messageId, d.status, d.attempts, d.lastStatus]), [[messageId, 'succeeded', 1, 204]]);
        }
        const payload: WebhookPayload = {
          type: 'feed.changed',
          timestamp: '2026-03-01T08:00:00.000Z',
          data: {
            feed: 'homepage', action: 'created', by: { type: 'key', name: 'srv1' }, organization: 'acme', project: 'shop',
            url: `${PUBLIC_URL}/admin/?organization=acme&project=shop#/feeds/homepage`,
          },
        };
        assert.equal(standard!.received.length, 1);
        assert.equal(slack!.received.length, 1);
        const [toStandardRequest, toSlackRequest] = [standard!.received[0]!, slack!.received[0]!];
        assert.equal(toStandardRequest.path, '/hooks/svc?team=growth');
        assert.equal(toStandardRequest.body, JSON.stringify(payload));
        assert.deepEqual(verified(toStandard.secret, toStandardRequest), payload);
        assert.equal(toSlackRequest.path, '/services/T0/B0/x');
        assert.equal(toSlackRequest.body, JSON.stringify(slackMessage(payload)));
        assert.deepEqual(verified(toSlack.secret, toSlackRequest), slackMessage(payload));
        for (const request of [toStandardRequest, toSlackRequest]) {
          assert.equal(request.method, 'POST');
          assert.equal(request.headers['content-type'], 'application/json');
          assert.equal(request.headers['webhook-id'], messageId);
          assert.match(String(request.headers['webhook-timestamp']), /^\d{10}$/);
          assert.match(String(request.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/);
          assert.match(String(request.headers['user-agent']), /^svc-webhooks\/\d+\.\d+\.\d+/);
        }
        assert.throws(() => verified(toSlack.secret, toStandardRequest), /signature/i, 'each endpoint signs with its own secret');
      });
    });

    it('retries a receiver that fails three times with the same webhook-id and body, and delivers once', async () => {
      await withReceivers(1, (_request, index) => (index < 3 ? 500 : 200), async ([receiver]) => {
        const endpoint = await insertEndpoint(h.storage, { url: `${receiver!.origin}/flaky` });
        const messageId = await emitFeedChanged(h.storage, 'flaky');
        const [delivery] = await settled(endpoint);
        assert.deepEqual([delivery!.status, delivery!.attempts, delivery!.lastStatus, delivery!.lastError], ['succeeded', 4, 200, null]);
        assert.equal(receiver!.received.length, 4);
        for (const request of receiver!.received) {
          assert.equal(request.headers['webhook-id'], messageId);
          assert.equal(request.body, receiver!.received[0]!.body);
          verified(endpoint.secret, request);
        }
        assert.deepEqual(await attemptsOf(h.storage, delivery!.id), [
          { attempt: 1, status: 500, error: 'HTTP 500' }, { attempt: 2, status: 500, error: 'HTTP 500' },
          { attempt: 3, status: 500, error: 'HTTP 500' }, { attempt: 4, status: 200, error: null },
        ]);
        assert.equal((await endpointRow(h.storage, endpoint))?.failingSince, null, 'a success ends the failing streak');
      });
    });

    it('does not follow a redirect: the target is never asked, and the attempt failed', async () => {
      await withReceivers(1, () => 200, async ([target]) => {
        await withReceivers(1, () => ({ status: 302, headers: { location: `${target!.origin}/elsewhere` } }), async ([redirecting]) => {
          const endpoint = await insertEndpoint(h.storage, { url: `${redirecting!.origin}/moved` });
          await emitFeedChanged(h.storage, 'moved');
          const [delivery] = await until(() => deliveriesOf(h.storage, endpoint), (d) => (d[0]?.attempts ?? 0) >= 2, 'two attempts');
          assert.equal(delivery!.status, 'pending');
          assert.deepEqual((await attemptsOf(h.storage, delivery!.id)).slice(0, 2).map((a) => [a.status, a.error]), [
            [302, 'HTTP 302: redirects are not followed'], [302, 'HTTP 302: redirects are not followed'],
          ]);
          assert.ok(redirecting!.received.length >= 2);
          assert.equal(target!.received.length, 0);
          assert.ok((await endpointRow(h.storage, endpoint))?.failingSince !== null, 'the endpoint is failing');
        });
      });
    });

    it('sends nothing to a deleted endpoint; to a disabled one only a test event', async () => {
      await withReceivers(1, () => 200, async ([receiver]) => {
        const deleted = await insertEndpoint(h.storage, { url: `${receiver!.origin}/deleted` });
        await h.storage.transaction(function* () {
          yield op('DELETE FROM webhook_endpoints WHERE project = ? AND id = ?', deleted.project, deleted.id);
        });
        const disabled = await insertEndpoint(h.storage, { url: `${receiver!.origin}/disabled`, enabled: false });
        const at = Date.now();
        const [event, test] = [newMessageId(), newMessageId()];
        await h.storage.transaction(function* () {
          for (const [id, type, data] of [[event, 'feed.changed', { feed: 'x', action: 'deleted' }], [test, 'webhook.test', { endpoint: disabled.id, message: 'hi' }]] as const) {
            yield op('INSERT INTO webhook_messages (id, project, type, at, data, path) VALUES (?, ?, ?, ?, ?, ?)', id, 'acme/shop', type, at, JSON.stringify(data), consolePath('acme/shop', '#/'));
          }
          // Queued before the endpoint was deleted, or before it was disabled.
          yield* queueDelivery('acme/shop', deleted.id, event, at);
          yield* queueDelivery('acme/shop', disabled.id, event, at);
          yield* queueDelivery('acme/shop', disabled.id, test, at);
        });
        assert.deepEqual((await settled(deleted)).map((d) => [d.status, d.attempts, d.lastError]), [['failed', 0, 'not sent: the endpoint was deleted']]);
        assert.deepEqual((await settled(disabled)).map((d) => [d.messageId, d.status, d.attempts, d.lastError]), [
          [event, 'failed', 0, 'not sent: the endpoint is disabled'], [test, 'succeeded', 1, null],
        ]);
        assert.deepEqual(receiver!.received.map((r) => [r.path, r.headers['webhook-id']]), [['/disabled', test]]);
        assert.deepEqual(verified(disabled.secret, receiver!.received[0]!), {
          type: 'webhook.test', timestamp: new Date(at).toISOString(),
          data: { endpoint: disabled.id, message: 'hi', organization: 'acme', project: 'shop', url: `${PUBLIC_URL}/admin/?organization=acme&project=shop#/` },
        });
      });
    });
  });

  describe(`webhooks given up (${driver.name})`, () => {
    const h = useApp(driver, { webhooks: { allowLoopback: true, pollMs: 20, firstRetryMs: 20, timeoutMs: 100, retryForMs: 400 } });

    it('a receiver that never answers: each attempt times out; retries end after retryForMs, the endpoint disabled and audited', async () => {
      await withReceivers(1, () => 'hang', async ([receiver]) => {
        const endpoint = await insertEndpoint(h.storage, { url: `${receiver!.origin}/silent` });
        await emitFeedChanged(h.storage, 'first');
        await emitFeedChanged(h.storage, 'second');
        const deliveries = await until(() => deliveriesOf(h.storage, endpoint), (d) => d.every((x) => x.status === 'failed'), 'given up');
        for (const delivery of deliveries) {
          const attempts = await attemptsOf(h.storage, delivery.id);
          assert.ok(attempts.length >= 1);
          for (const attempt of attempts) assert.deepEqual([attempt.status, attempt.error], [null, 'no answer within 100 ms']);
        }
        assert.ok(receiver!.received.length >= 2);
        const row = await endpointRow(h.storage, endpoint);
        assert.equal(row?.enabled, false);
        assert.equal(row?.version, 2);
        assert.match(row?.disabledReason ?? '', /^failing since \d{4}-\d\d-\d\dT[\d:.]+Z; last attempt: no answer within 100 ms$/);
        const audit = await endpointAudit(h.storage, endpoint);
        assert.equal(audit.length, 1);
        const [entry] = audit;
        assert.deepEqual([entry!.action, entry!.kind, entry!.keyId, entry!.actor], ['disable', 'webhook', 'service', { type: 'key', id: 'service', name: 'svc webhooks' }]);
        assert.deepEqual([entry!.before.enabled, entry!.before.version, entry!.before.disabledReason], [true, 1, null]);
        assert.deepEqual([entry!.after.enabled, entry!.after.version, entry!.after.disabledReason], [false, 2, row?.disabledReason]);
        assert.equal(entry!.after.url, `${receiver!.origin}/silent`);
        for (const side of [entry!.before, entry!.after]) assert.ok(!JSON.stringify(side).includes(endpoint.secret.slice(6)), 'no secret in the audit');
      });
    });

    it('an answer begun but not ended within the deadline is a failed attempt, not a delivery', async () => {
      await withReceivers(1, () => 'stall', async ([receiver]) => {
        const endpoint = await insertEndpoint(h.storage, { url: `${receiver!.origin}/stalling` });
        await emitFeedChanged(h.storage, 'stalled');
        const [delivery] = await until(() => deliveriesOf(h.storage, endpoint), (d) => d[0]!.attempts >= 1, 'the first attempt');
        assert.deepEqual((await attemptsOf(h.storage, delivery!.id))[0], { attempt: 1, status: null, error: 'no answer within 100 ms' });
      });
    });
  });
}
