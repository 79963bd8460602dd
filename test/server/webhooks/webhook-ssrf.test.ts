// No webhook reaches into the operator's network at send time: an endpoint's host name that resolves (now: DNS
// rebinding) to a loopback, private, link-local or IPv6 loopback address is refused before any connection, and the
// attempt's error names the address; a redirect to the cloud's metadata address is not followed. The service's lookup
// is injected, and a net under every TCP connection of this process refuses (and records) any address outside
// 127.0.0.0/8: were the guard broken, the test fails without a packet leaving the machine. The storage plays no part:
// SQLite alone.
import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { after, afterEach, describe, it } from 'node:test';
import type { HostLookup } from '../../../server/webhooks/address-guard.js';
import { loopbackOnly } from '../helpers/loopback-only.js';
import { SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { useApp } from '../helpers/use-test-app.js';
import { attemptsOf, deliveriesOf, emitFeedChanged, insertEndpoint, until } from '../helpers/webhook-fixtures.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const net = loopbackOnly();
after(() => net.uninstall());
/** Fails the test during which a connection outside 127.0.0.0/8 was tried (and refused by the net). */
const noneRefused = (): void => assert.deepEqual(net.refused.splice(0), [], 'connections outside 127.0.0.0/8');

/** Where each test host name resolves: the addresses an attacker's DNS would answer after the endpoint was written. */
const RESOLVES_TO: Record<string, string> = {
  'loopback.example.test': '127.0.0.1',
  'private.example.test': '10.0.0.5',
  'metadata.example.test': '169.254.169.254',
  'v6-loopback.example.test': '::1',
};
const lookup: HostLookup = async (hostname) => {
  const address = RESOLVES_TO[hostname];
  if (address === undefined) throw new Error(`${hostname} does not resolve`);
  return [{ address, family: isIP(address) }];
};

describe('webhooks to private addresses at send time (sqlite)', () => {
  const h = useApp(SQLITE_DRIVER, { webhooks: { lookup, allowLoopback: false, pollMs: 20, firstRetryMs: 60_000 } });
  afterEach(noneRefused);

  it('refuses a host name resolving to a loopback, private, link-local or IPv6 loopback address, and an address in the URL', async () => {
    const urls = [
      ...Object.keys(RESOLVES_TO).map((host) => [`https://${host}/hook`, RESOLVES_TO[host]!] as const),
      ['https://169.254.169.254/latest/meta-data/', '169.254.169.254'] as const,
      ['https://[::1]:8443/hook', '::1'] as const,
    ];
    const endpoints = await Promise.all(urls.map(([url]) => insertEndpoint(h.storage, { url })));
    await emitFeedChanged(h.storage, 'rebound');
    for (const [i, endpoint] of endpoints.entries()) {
      const [delivery] = await until(() => deliveriesOf(h.storage, endpoint), (d) => d[0]!.attempts >= 1, 'the first attempt');
      const [attempt] = await attemptsOf(h.storage, delivery!.id);
      assert.equal(attempt!.status, null);
      assert.ok(attempt!.error!.includes(`resolves to ${urls[i]![1]}, a private, loopback, link-local or reserved address`), attempt!.error!);
    }
    assert.deepEqual(net.attempted, [], 'no connection was even tried');
  });
});

describe('a redirect to the metadata address (sqlite)', () => {
  const h = useApp(SQLITE_DRIVER, { webhooks: { allowLoopback: true, pollMs: 20, firstRetryMs: 60_000 } });
  afterEach(noneRefused);

  it('is not followed: the receiver alone is asked', async () => {
    const receiver = await startReceiver(() => ({ status: 307, headers: { location: 'http://169.254.169.254/latest/meta-data/iam/' } }));
    try {
      const endpoint = await insertEndpoint(h.storage, { url: `${receiver.origin}/hook` });
      net.attempted.length = 0;
      await emitFeedChanged(h.storage, 'redirected');
      const [delivery] = await until(() => deliveriesOf(h.storage, endpoint), (d) => d[0]!.attempts >= 1, 'the first attempt');
      assert.deepEqual((await attemptsOf(h.storage, delivery!.id)).map((a) => [a.status, a.error]), [[307, 'HTTP 307: redirects are not followed']]);
      assert.equal(receiver.received.length, 1);
      assert.deepEqual(net.attempted, [`127.0.0.1:${receiver.port}`]);
    } finally {
      await receiver.close();
    }
  });
});
