// The webhook endpoints API on SQLite and PostgreSQL: the secret answered once, every field checked before anything is
// stored, versions and If-Match, the audit, admins only, the delivery log, test events and resends; and URLs that would
// reach into the operator's network refused after the (injected) DNS answer, with no packet ever leaving 127.0.0.0/8.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { op, type SqlValue } from '../../../server/storage/sql-program.js';
import type { HostLookup } from '../../../server/webhooks/address-guard.js';
import { consolePath, emitWebhookEvent } from '../../../server/webhooks/webhook-outbox.js';
import { DRIVERS, SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { testConfig } from '../helpers/test-config.js';
import { useApp, type AppHandle } from '../helpers/use-test-app.js';
import { loopbackConnectionsOnly, type ConnectionGuard } from './loopback-connections-only.js';

const ADMIN = 'adm1.s3cret';
const SHOP = '/v1/acme/projects/shop/webhooks';
const BLOG = '/v1/acme/projects/blog/webhooks';
const PASSWORD = 'correct horse battery';

/** The test's DNS: the only resolver the service is given. A public address for hooks.svc.test, the rest not. */
const ADDRESSES: Record<string, string[]> = {
  'hooks.svc.test': ['93.184.216.34'],
  'loopback.svc.test': ['127.0.0.1'],
  'private.svc.test': ['10.1.2.3'],
  'home.svc.test': ['192.168.1.1'],
  'metadata.svc.test': ['169.254.169.254'],
  'six.svc.test': ['::1'],
  'mixed.svc.test': ['93.184.216.34', '10.1.2.3'],
};
const looked: string[] = [];
const lookup: HostLookup = async (host) => {
  looked.push(host);
  const found = ADDRESSES[host];
  if (found === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
};

function config(): ServiceConfigFile {
  const file = testConfig();
  file.organizations.acme!.adminKeys = [ADMIN];
  file.organizations.other!.adminKeys = ['admother.x'];
  return file;
}

const HOOK = { url: 'https://hooks.svc.test/svc', events: ['experiment.started', 'experiment.stopped'] };

type Answer = { statusCode: number; json(): any; body: string; headers: Record<string, string | string[] | number | undefined> };
type Caller = { key?: string; cookie?: string; csrf?: string; headers?: Record<string, string> };

let guard: ConnectionGuard;
before(() => {
  guard = loopbackConnectionsOnly();
});
afterEach(() => assert.deepEqual(guard.refused.splice(0), [], 'connections to anywhere but 127.0.0.0/8'));
after(() => guard.restore());

/** Calls and reads of one suite's app. */
function using(h: AppHandle) {
  const call = (method: string, url: string, who: Caller | string = ADMIN, payload?: unknown): Promise<Answer> => {
    const caller = typeof who === 'string' ? { key: who } : who;
    return h.app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...(caller.key ? { authorization: `Bearer ${caller.key}` } : {}),
        ...(caller.cookie ? { cookie: `svc_session=${caller.cookie}`, 'x-csrf-token': caller.csrf ?? '' } : {}),
        ...caller.headers,
      },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    }) as Promise<Answer>;
  };
  const create = async (body: object = HOOK, base = SHOP): Promise<any> => {
    const res = await call('POST', base, ADMIN, body);
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  };
  const rows = (sql: string, ...params: SqlValue[]) => h.storage.run(function* () {
    return (yield op(sql, ...params)).rows;
  });
  const count = async (table: string): Promise<number> => Number((await rows(`SELECT COUNT(*) AS n FROM ${table}`))[0]!.n);
  return { call, create, rows, count };
}

/** A 400 `invalid_webhook` whose message names `field`. */
function assertInvalid(res: Answer, field: string, what: string): void {
  assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
  assert.equal(res.json().error.code, 'invalid_webhook', what);
  assert.ok(res.json().error.message.startsWith(`${field}: `), `${what}: ${res.json().error.message}`);
}

for (const driver of DRIVERS) {
  describe(`webhook endpoints API (${driver.name})`, () => {
    let clock = Date.parse('2026-11-30T09:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock, webhooks: { lookup, allowLoopback: false } }));
    const { call, create, rows, count } = using(h);

    it('creates an endpoint: 201 with the secret this once, ETag "1" and Location; reads and lists never answer it', async () => {
      const res = await call('POST', SHOP, ADMIN, { ...HOOK, format: 'slack', description: 'Team channel' });
      assert.equal(res.statusCode, 201, res.body);
      const made = res.json();
      assert.match(made.id, /^ep_[\w-]{22}$/);
      assert.match(made.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
      assert.equal(Buffer.from(made.secret.slice(6), 'base64').length, 24);
      assert.equal(res.headers.etag, '"1"');
      assert.equal(res.headers.location, `${SHOP}/${made.id}`);
      const at = new Date(clock).toISOString();
      const endpoint = {
        id: made.id, url: HOOK.url, events: HOOK.events, format: 'slack', enabled: true, description: 'Team channel', version: 1,
        createdAt: at, updatedAt: at, failingSince: null, disabledReason: null,
      };
      assert.deepEqual(made, { ...endpoint, secret: made.secret });
      assert.deepEqual((await rows('SELECT secret FROM webhook_endpoints WHERE id = ?', made.id))[0]!.secret, made.secret);
      const read = await call('GET', `${SHOP}/${made.id}`);
      assert.deepEqual([read.statusCode, read.headers.etag, read.json()], [200, '"1"', endpoint]);
      clock += 1000;
      const second = await create({ url: 'https://hooks.svc.test/other', events: ['feed.changed'] });
      assert.notEqual(second.secret, made.secret);
      assert.deepEqual([second.format, second.enabled, second.description], ['standard', true, '']);
      const list = await call('GET', SHOP);
      assert.deepEqual(list.json().webhooks.map((w: { id: string }) => w.id), [made.id, second.id], 'oldest first');
      for (const answer of [read, list]) assert.ok(!answer.body.includes(made.secret.slice(6)) && !answer.body.includes('whsec_'), 'no secret');
    });

    it('checks every field before storing anything: 400 invalid_webhook naming the field, for a POST and a PUT', async () => {
      const kept = await create(HOOK, BLOG);
      const before = await count('webhook_endpoints');
      const audited = await count('audit_log');
      const cases: [unknown, string, string][] = [
        [{ events: HOOK.events }, 'url', 'no url'],
        [{ ...HOOK, url: 42 }, 'url', 'a number'],
        [{ ...HOOK, url: 'hooks.svc.test/svc' }, 'url', 'not absolute'],
        [{ ...HOOK, url: 'http://hooks.svc.test/svc' }, 'url', 'http without loopback allowed'],
        [{ ...HOOK, url: 'ftp://hooks.svc.test/svc' }, 'url', 'ftp'],
        [{ ...HOOK, url: 'https://me:pw@hooks.svc.test/svc' }, 'url', 'credentials'],
        [{ ...HOOK, url: 'https://nowhere.svc.test/' }, 'url', 'a host that does not resolve'],
        [{ ...HOOK, url: `https://hooks.svc.test/${'a'.repeat(2048)}` }, 'url', 'too long'],
        [{ url: HOOK.url }, 'events', 'no events'],
        [{ ...HOOK, events: [] }, 'events', 'empty events'],
        [{ ...HOOK, events: 'experiment.started' }, 'events', 'events as a string'],
        [{ ...HOOK, events: ['experiment.started', 'experiment.exploded'] }, 'events[1]', 'an unknown event'],
        [{ ...HOOK, events: ['webhook.test'] }, 'events[0]', 'the test event'],
        [{ ...HOOK, events: ['feed.changed', 'feed.changed'] }, 'events[1]', 'a duplicate event'],
        [{ ...HOOK, format: 'xml' }, 'format', 'an unknown format'],
        [{ ...HOOK, enabled: 'yes' }, 'enabled', 'enabled as a string'],
        [{ ...HOOK, description: 'x'.repeat(201) }, 'description', 'a description too long'],
        [{ ...HOOK, secret: 'whsec_mine' }, 'secret', 'an unknown field'],
        [{ ...HOOK, description: 'a\u0000b' }, 'description', 'U+0000'],
        [[HOOK], 'body', 'an array'],
      ];
      for (const [body, field, what] of cases) {
        assertInvalid(await call('POST', BLOG, ADMIN, body), field, `POST, ${what}`);
        assertInvalid(await call('PUT', `${BLOG}/${kept.id}`, ADMIN, body), field, `PUT, ${what}`);
      }
      assert.equal(await count('webhook_endpoints'), before, 'nothing stored');
      assert.equal(await count('audit_log'), audited, 'nothing audited');
      const { secret: _secret, ...unchanged } = kept;
      assert.deepEqual((await call('GET', `${BLOG}/${kept.id}`)).json(), unchanged, 'unchanged');
      assert.equal((await call('POST', BLOG, ADMIN, { ...HOOK, description: 'x'.repeat(200) })).statusCode, 201, '200 characters');
    });

    it('replaces under If-Match: the next version and ETag, 412 version_conflict on another one; the secret stays', async () => {
      const { secret, ...made } = await create();
      clock += 1000;
      const replaced = await call('PUT', `${SHOP}/${made.id}`, { key: ADMIN, headers: { 'if-match': '"1"' } }, { url: 'https://hooks.svc.test/new', events: ['bandit.reweighted'] });
      assert.equal(replaced.statusCode, 200, replaced.body);
      assert.equal(replaced.headers.etag, '"2"');
      assert.deepEqual(replaced.json(), {
        ...made, url: 'https://hooks.svc.test/new', events: ['bandit.reweighted'], version: 2, updatedAt: new Date(clock).toISOString(),
      });
      for (const stale of ['"1"', '"7"', 'not-a-version']) {
        const res = await call('PUT', `${SHOP}/${made.id}`, { key: ADMIN, headers: { 'if-match': stale } }, HOOK);
        assert.deepEqual([res.statusCode, res.json().error.code], [412, 'version_conflict'], stale);
      }
      assert.equal((await call('PUT', `${SHOP}/${made.id}`, ADMIN, HOOK)).json().version, 3, 'without If-Match');
      assert.equal((await rows('SELECT secret FROM webhook_endpoints WHERE id = ?', made.id))[0]!.secret, secret);
      const staleDelete = await call('DELETE', `${SHOP}/${made.id}`, { key: ADMIN, headers: { 'if-match': '"2"' } });
      assert.deepEqual([staleDelete.statusCode, staleDelete.json().error.code], [412, 'version_conflict']);
      assert.equal((await call('DELETE', `${SHOP}/${made.id}`, { key: ADMIN, headers: { 'if-match': '"3"' } })).statusCode, 204);
      for (const [method, url, body] of [
        ['GET', `${SHOP}/${made.id}`], ['PUT', `${SHOP}/${made.id}`, HOOK], ['DELETE', `${SHOP}/${made.id}`],
        ['GET', `${SHOP}/${made.id}/deliveries`], ['POST', `${SHOP}/${made.id}/test`], ['PUT', `${SHOP}/ep_nope`, HOOK],
      ] as const) {
        const res = await call(method, url, ADMIN, body);
        assert.deepEqual([res.statusCode, res.json().error.code], [404, 'webhook_not_found'], `${method} ${url}`);
      }
    });

    it('audits creation, replacement and deletion with who did it and both sides, never the secret', async () => {
      const made = await create(HOOK, BLOG);
      const replaced = (await call('PUT', `${BLOG}/${made.id}`, ADMIN, { ...HOOK, enabled: false })).json();
      assert.equal((await call('DELETE', `${BLOG}/${made.id}`)).statusCode, 204);
      const res = await call('GET', `/v1/acme/projects/blog/audit?kind=webhook&name=${made.id}`);
      assert.equal(res.statusCode, 200, res.body);
      const actor = { type: 'key', id: 'adm1', name: 'adm1', role: 'admin', ip: '127.0.0.1', userAgent: 'lightMyRequest' };
      const { secret, ...created } = made;
      assert.deepEqual(res.json().entries.map((e: any) => [e.action, e.kind, e.name, e.actor, e.before, e.after]), [
        ['delete', 'webhook', made.id, actor, replaced, null],
        ['update', 'webhook', made.id, actor, created, replaced],
        ['create', 'webhook', made.id, actor, null, created],
      ]);
      assert.ok(!res.body.includes(secret.slice(6)) && !res.body.includes('secret'), 'no secret in the audit');
    });

    it('lets admins only: viewers and editors (keys and people) 403 role_forbidden, other projects\' keys refused', async () => {
      const made = await create();
      const key = async (body: object): Promise<string> => {
        const res = await call('POST', '/v1/acme/keys', ADMIN, body);
        assert.equal(res.statusCode, 201, res.body);
        return res.json().key;
      };
      const person = async (email: string, role: string): Promise<Caller> => {
        assert.ok([200, 201].includes((await call('PUT', `/v1/acme/people/${encodeURIComponent(email)}`, ADMIN, { role })).statusCode));
        const invited = await call('POST', `/v1/acme/people/${encodeURIComponent(email)}/invitation`, ADMIN, {});
        const token = /#\/invitation\/([\w-]{43})$/.exec(invited.json().url)![1];
        const accepted = await call('POST', '/v1/acme/invitations/accept', {}, { token, password: PASSWORD });
        assert.equal(accepted.statusCode, 200, accepted.body);
        const cookie = /svc_session=([^;]+)/.exec([accepted.headers['set-cookie']].flat().join('\n'))![1]!;
        return { cookie, csrf: accepted.json().csrfToken };
      };
      const routes: [string, string, unknown?][] = [
        ['GET', SHOP], ['POST', SHOP, HOOK], ['GET', `${SHOP}/${made.id}`], ['PUT', `${SHOP}/${made.id}`, HOOK],
        ['DELETE', `${SHOP}/${made.id}`], ['GET', `${SHOP}/${made.id}/deliveries`], ['POST', `${SHOP}/${made.id}/test`],
        ['POST', `${SHOP}/${made.id}/deliveries/1/resend`],
      ];
      const refusals: [Caller, string][] = [
        [{ key: await key({ name: 'analyst', role: 'viewer' }) }, 'role_forbidden'],
        [{ key: await key({ name: 'marketer', role: 'editor' }) }, 'role_forbidden'],
        [await person('mia@example.com', 'editor'), 'role_forbidden'],
        [{ key: await key({ name: 'blog admin', role: 'admin', projects: ['blog'] }) }, 'key_not_for_project'],
        [{ key: 'admother.x' }, 'key_not_for_project'],
        [{ key: 'srv1.s3cret' }, 'admin_key_required'],
      ];
      for (const [who, code] of refusals) {
        for (const [method, url, body] of routes) {
          const res = await call(method, url, who, body);
          assert.deepEqual([res.statusCode, res.json().error.code], [403, code], `${method} ${url} as ${JSON.stringify(who).slice(0, 40)}`);
        }
      }
      assert.equal((await call('GET', SHOP, {})).statusCode, 401);
      const admin = await person('ola@example.com', 'admin');
      const byPerson = await call('POST', SHOP, admin, HOOK);
      assert.equal(byPerson.statusCode, 201, byPerson.body);
      const entry = (await call('GET', `/v1/acme/projects/shop/audit?kind=webhook&name=${byPerson.json().id}`)).json().entries[0];
      assert.deepEqual([entry.action, entry.actor.type, entry.actor.id, entry.actor.role], ['create', 'person', 'ola@example.com', 'admin']);
    });

    it('answers 404 for another project\'s endpoint and deliveries', async () => {
      const theirs = await create(HOOK, BLOG);
      const queued = (await call('POST', `${BLOG}/${theirs.id}/test`)).json();
      for (const [method, url, body] of [
        ['GET', `${SHOP}/${theirs.id}`], ['PUT', `${SHOP}/${theirs.id}`, HOOK], ['DELETE', `${SHOP}/${theirs.id}`],
        ['GET', `${SHOP}/${theirs.id}/deliveries`], ['POST', `${SHOP}/${theirs.id}/test`],
        ['POST', `${SHOP}/${theirs.id}/deliveries/${queued.deliveryId}/resend`],
      ] as const) {
        const res = await call(method, url, ADMIN, body);
        assert.deepEqual([res.statusCode, res.json().error.code], [404, 'webhook_not_found'], `${method} ${url}`);
      }
      assert.ok((await call('GET', SHOP)).json().webhooks.every((w: { id: string }) => w.id !== theirs.id));
      assert.equal((await call('GET', `${BLOG}/${theirs.id}`)).statusCode, 200, 'still there');
    });

    it('gives up pending deliveries when an endpoint is disabled or deleted; enabling it clears failing and the service\'s reason', async () => {
      const made = await create();
      const first = (await call('POST', `${SHOP}/${made.id}/test`)).json();
      await call('PUT', `${SHOP}/${made.id}`, ADMIN, { ...HOOK, description: 'still on' });
      assert.equal((await call('GET', `${SHOP}/${made.id}/deliveries`)).json().deliveries[0].status, 'pending', 'an edit leaves it');
      const disabled = (await call('PUT', `${SHOP}/${made.id}`, ADMIN, { ...HOOK, enabled: false })).json();
      assert.equal(disabled.enabled, false);
      const [given] = (await call('GET', `${SHOP}/${made.id}/deliveries`)).json().deliveries;
      assert.deepEqual([given.id, given.status, given.error, given.nextAttemptAt], [first.deliveryId, 'failed', 'endpoint disabled', null]);
      // As the service leaves an endpoint it disabled after 24 hours of failures.
      await h.storage.transaction(function* () {
        yield op('UPDATE webhook_endpoints SET failing_since = ?, disabled_reason = ? WHERE id = ?', clock - 86_400_000, 'failing for 24 hours', made.id);
      });
      const still = (await call('PUT', `${SHOP}/${made.id}`, ADMIN, { ...HOOK, enabled: false })).json();
      assert.deepEqual([still.failingSince, still.disabledReason], [new Date(clock - 86_400_000).toISOString(), 'failing for 24 hours']);
      const enabled = (await call('PUT', `${SHOP}/${made.id}`, ADMIN, HOOK)).json();
      assert.deepEqual([enabled.enabled, enabled.failingSince, enabled.disabledReason], [true, null, null]);
      const second = (await call('POST', `${SHOP}/${made.id}/test`)).json();
      assert.equal((await call('DELETE', `${SHOP}/${made.id}`)).statusCode, 204);
      const [row] = await rows('SELECT status, last_error, next_at FROM webhook_deliveries WHERE id = ?', second.deliveryId);
      assert.deepEqual([row!.status, row!.last_error, row!.next_at], ['failed', 'endpoint deleted', null]);
    });

    it('queues a test event to that endpoint alone, even a disabled one or one that asked for no such event', async () => {
      const target = await create({ url: HOOK.url, events: ['feed.changed'] });
      const other = await create({ url: HOOK.url, events: ['feed.changed'] });
      const res = await call('POST', `${SHOP}/${target.id}/test`);
      assert.equal(res.statusCode, 202, res.body);
      const { messageId, deliveryId } = res.json();
      assert.match(messageId, /^msg_/);
      const [message] = await rows('SELECT project, type, at, data, path FROM webhook_messages WHERE id = ?', messageId);
      assert.deepEqual({ ...message, at: Number(message!.at), data: JSON.parse(String(message!.data)) }, {
        project: 'acme/shop', type: 'webhook.test', at: clock,
        data: { endpoint: target.id, message: 'A test event from svc: this endpoint is reachable and verifies signatures.' },
        path: consolePath('acme/shop', '#/webhooks'),
      });
      const deliveries = await rows('SELECT id, endpoint_id, status FROM webhook_deliveries WHERE message_id = ?', messageId);
      assert.deepEqual(deliveries.map((d) => [Number(d.id), d.endpoint_id, d.status]), [[deliveryId, target.id, 'pending']]);
      assert.deepEqual((await call('GET', `${SHOP}/${other.id}/deliveries`)).json().deliveries, []);
      await call('PUT', `${SHOP}/${other.id}`, ADMIN, { url: HOOK.url, events: ['feed.changed'], enabled: false });
      const toDisabled = await call('POST', `${SHOP}/${other.id}/test`);
      assert.equal(toDisabled.statusCode, 202, toDisabled.body);
      assert.equal((await call('GET', `${SHOP}/${other.id}/deliveries`)).json().deliveries[0].status, 'pending');
    });

    it('lists an endpoint\'s deliveries newest first, a page at a time (limit, before), with each one\'s last attempt', async () => {
      const made = await create({ url: HOOK.url, events: ['feed.changed'] });
      const other = await create({ url: HOOK.url, events: ['feed.changed'] });
      const ids: number[] = [];
      for (let i = 0; i < 4; i++) ids.push((await call('POST', `${SHOP}/${made.id}/test`)).json().deliveryId);
      await call('POST', `${SHOP}/${other.id}/test`);
      const event = await h.storage.transaction(() => emitWebhookEvent({
        project: 'acme/shop', type: 'feed.changed', data: { feed: '1', action: 'updated', by: { type: 'key', name: 'adm1' } }, at: clock, path: '/admin/',
      }));
      const [emitted] = await rows('SELECT id FROM webhook_deliveries WHERE message_id = ? AND endpoint_id = ?', event, made.id);
      ids.push(Number(emitted!.id));
      await h.storage.transaction(function* () {
        yield op(`UPDATE webhook_deliveries SET status = 'succeeded', attempts = 2, last_at = ?, last_status = 200, last_latency_ms = 87, last_error = NULL
          WHERE id = ?`, clock + 5000, ids[0]!);
        yield op('UPDATE webhook_deliveries SET attempts = 1, last_at = ?, last_status = 503, last_latency_ms = 40, last_error = ?, next_at = ? WHERE id = ?',
          clock + 1000, 'HTTP 503', clock + 6000, ids[1]!);
      });
      const page = async (query: string) => (await call('GET', `${SHOP}/${made.id}/deliveries${query}`)).json().deliveries as any[];
      const all = await page('');
      assert.deepEqual(all.map((d) => d.id), [...ids].reverse());
      assert.deepEqual(all.map((d) => d.type), ['feed.changed', 'webhook.test', 'webhook.test', 'webhook.test', 'webhook.test']);
      const iso = (at: number) => new Date(at).toISOString();
      assert.deepEqual(all[4], {
        id: ids[0], messageId: all[4].messageId, type: 'webhook.test', status: 'succeeded', attempts: 2, createdAt: iso(clock),
        lastAttemptAt: iso(clock + 5000), responseStatus: 200, latencyMs: 87, error: null, nextAttemptAt: null,
      });
      assert.deepEqual([all[3].status, all[3].responseStatus, all[3].error, all[3].nextAttemptAt], ['pending', 503, 'HTTP 503', iso(clock + 6000)]);
      const first = await page('?limit=2');
      const second = await page(`?limit=2&before=${first[1].id}`);
      const third = await page(`?limit=2&before=${second[1].id}`);
      assert.deepEqual([first, second, third].map((p) => p.map((d) => d.id)), [[ids[4], ids[3]], [ids[2], ids[1]], [ids[0]]]);
      for (const [query, field] of [['?limit=0', 'limit'], ['?limit=201', 'limit'], ['?limit=x', 'limit'], ['?before=abc', 'before'], ['?before=-1', 'before']]) {
        const res = await call('GET', `${SHOP}/${made.id}/deliveries${query}`);
        assert.deepEqual([res.statusCode, res.json().error.code], [400, 'invalid_request'], query);
        assert.ok(res.json().error.message.startsWith(`${field}: `), res.json().error.message);
      }
      assert.equal((await page('?limit=200')).length, 5);
    });

    it('resends a delivery: the same message queued again, due now; another endpoint\'s delivery is 404', async () => {
      const made = await create();
      const other = await create();
      const { messageId, deliveryId } = (await call('POST', `${SHOP}/${made.id}/test`)).json();
      const theirs = (await call('POST', `${SHOP}/${other.id}/test`)).json();
      await h.storage.transaction(function* () {
        yield op(`UPDATE webhook_deliveries SET status = 'failed', attempts = 9, next_at = NULL, last_status = 500, last_error = 'HTTP 500' WHERE id = ?`, deliveryId);
      });
      clock += 60_000;
      const res = await call('POST', `${SHOP}/${made.id}/deliveries/${deliveryId}/resend`);
      assert.equal(res.statusCode, 202, res.body);
      assert.deepEqual(res.json(), { deliveryId });
      const [again] = (await call('GET', `${SHOP}/${made.id}/deliveries`)).json().deliveries;
      const iso = new Date(clock).toISOString();
      assert.deepEqual([again.id, again.messageId, again.status, again.createdAt, again.nextAttemptAt], [deliveryId, messageId, 'pending', iso, iso]);
      for (const id of [theirs.deliveryId, 99999, 'abc', '0']) {
        const refused = await call('POST', `${SHOP}/${made.id}/deliveries/${id}/resend`);
        assert.deepEqual([refused.statusCode, refused.json().error.code], [404, 'webhook_not_found'], String(id));
      }
    });

    it('refuses a URL whose host is or resolves to a loopback, private or link-local address (the injected DNS), stores nothing', async () => {
      const before = await count('webhook_endpoints');
      looked.length = 0;
      const refused = [
        'https://loopback.svc.test/', 'https://private.svc.test/hook', 'https://home.svc.test/', 'https://metadata.svc.test/latest/meta-data',
        'https://six.svc.test/', 'https://mixed.svc.test/', 'https://[::1]/', 'https://169.254.169.254/', 'https://127.0.0.1:8443/',
        'https://10.1.2.3/', 'https://[::ffff:10.1.2.3]/', 'https://[fe80::1]/', 'http://127.0.0.1:8080/',
      ];
      for (const url of refused) assertInvalid(await call('POST', SHOP, ADMIN, { ...HOOK, url }), 'url', url);
      assert.deepEqual(looked.sort(), ['home.svc.test', 'loopback.svc.test', 'metadata.svc.test', 'mixed.svc.test', 'private.svc.test', 'six.svc.test']);
      assert.equal(await count('webhook_endpoints'), before);
    });

    it('checks its connect hook: a connection anywhere but 127.0.0.0/8 throws before a packet is sent', () => {
      assert.throws(() => net.connect({ host: '10.1.2.3', port: 9 }), /only 127\.0\.0\.0\/8/);
      assert.throws(() => net.connect(9, 'example.com'), /only 127\.0\.0\.0\/8/);
      assert.deepEqual(guard.refused.splice(0), ['10.1.2.3', 'example.com']);
    });
  });
}

describe('webhook endpoints with loopback allowed (a test service\'s config)', () => {
  const h = useApp(SQLITE_DRIVER, { config: config(), webhooks: { lookup, allowLoopback: true } });
  const { call } = using(h);
  let receiver: Server;
  before(async () => {
    receiver = createServer((_request, response) => response.end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  after(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it('takes http and loopback URLs, still refusing private, link-local and other reserved addresses', async () => {
    const port = (receiver.address() as AddressInfo).port;
    for (const url of [`http://127.0.0.1:${port}/hook`, 'https://loopback.svc.test/', `http://[::1]:${port}/`]) {
      const res = await call('POST', SHOP, ADMIN, { ...HOOK, url });
      assert.equal(res.statusCode, 201, `${url}: ${res.body}`);
    }
    for (const url of ['http://private.svc.test/', 'https://10.1.2.3/', 'https://169.254.169.254/', 'https://metadata.svc.test/', 'https://[fe80::1]/']) {
      assertInvalid(await call('POST', SHOP, ADMIN, { ...HOOK, url }), 'url', url);
    }
  });
});
