// Bad input found by an adversarial pass, each through the HTTP API on SQLite and PostgreSQL: a 4xx in our shape
// naming the field, and nothing stored (the database reads the same before and after).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ERROR_CODES, type ErrorCode } from '../../../server/errors/error-codes.js';
import { openDatabaseReader, type DatabaseReader } from '../helpers/database-fingerprint.js';
import { makeEvent } from '../helpers/events.js';
import { hardeningConfig, send, type EndpointName } from '../helpers/hardening-fixtures.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { useApp } from '../helpers/use-test-app.js';
import { canonicalProfile } from '../../../server/identity/identity-store.js';

interface Refusal {
  name: string;
  endpoint: EndpointName;
  /** A value (serialized with JSON.stringify) or JSON text as sent. */
  body: unknown;
  code: ErrorCode;
  /** The start of the message: the field's path, then the problem. */
  message: string;
}

const NUL = 'a\u0000b';
const LONE = 'p\ud800';
const event = (overrides: Record<string, unknown>) => ({ ...makeEvent(), ...overrides });
const choose = (identification: Record<string, unknown>, more: Record<string, unknown> = {}) =>
  ({ identification, names: ['hero-banner'], ...more });
const consent = (more: Record<string, unknown>) => ({ profileId: 'prof-1', action: 'accept', validUntil: 1_800_000_000_000, ...more });
const feed = (more: Record<string, unknown>) => ({ profileId: 'prof-1', sourceId: 'web', limit: 4, fields: ['title'], ...more });
/** `depth` nested arrays as JSON text: JSON.stringify itself would overflow building it. */
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
/** A body's JSON text with `"@DEEP@"` replaced by 5,000 nested arrays (≈ 10 KB; the pass used up to 600 KB). */
const deep = (body: unknown) => JSON.stringify(body).replace('"@DEEP@"', nested(5000));

// Spec as data: each finding's inputs and the answer they must get.
const REFUSALS: Refusal[] = [
  // U+0000: PostgreSQL refuses it in text (22021); refused with 400 on both drivers, wherever it is.
  { name: 'U+0000 in a track profileId', endpoint: 'track', body: { batch: [event({ profileId: NUL })] }, code: 'invalid_event', message: 'batch[0].profileId: must not contain U+0000' },
  { name: 'U+0000 in a track sessionId', endpoint: 'track', body: { batch: [makeEvent(), event({ sessionId: NUL })] }, code: 'invalid_event', message: 'batch[1].sessionId: must not contain U+0000' },
  { name: 'U+0000 in an event name', endpoint: 'track', body: { batch: [event({ name: NUL })] }, code: 'invalid_event', message: 'batch[0].name: must not contain U+0000' },
  { name: 'U+0000 in an identify userId', endpoint: 'track', body: { batch: [event({ type: 'identify', name: 'Identify', userId: NUL })] }, code: 'invalid_event', message: 'batch[0].userId: must not contain U+0000' },
  { name: 'U+0000 in a group accountId', endpoint: 'track', body: { batch: [event({ type: 'group', name: 'Group', accountId: NUL })] }, code: 'invalid_event', message: 'batch[0].accountId: must not contain U+0000' },
  { name: 'U+0000 in an attribute key', endpoint: 'track', body: { batch: [event({ type: 'identify', name: 'Identify', userId: 'u1', userAttributes: { [NUL]: 1 } })] }, code: 'invalid_event', message: 'batch[0].userAttributes["a\\u0000b"]: key must not contain U+0000' },
  { name: 'U+0000 in a data value', endpoint: 'track', body: { batch: [event({ data: { note: NUL } })] }, code: 'invalid_event', message: 'batch[0].data.note: must not contain U+0000' },
  { name: 'U+0000 in a consent profileId', endpoint: 'consent', body: consent({ profileId: NUL }), code: 'invalid_consent', message: 'profileId: must not contain U+0000' },
  { name: 'U+0000 in a consent category', endpoint: 'consent', body: consent({ category: NUL }), code: 'invalid_consent', message: 'category: must not contain U+0000' },
  { name: 'U+0000 in a Choose profileId', endpoint: 'choose', body: choose({ sourceId: 'web', profileId: NUL }), code: 'invalid_request', message: 'identification.profileId: must not contain U+0000' },
  { name: 'U+0000 in a Choose sessionId', endpoint: 'choose', body: choose({ sourceId: 'web', profileId: 'p' }, { sessionId: NUL }), code: 'invalid_request', message: 'sessionId: must not contain U+0000' },
  { name: 'U+0000 in a Choose identification sent as a JSON string', endpoint: 'choose', body: choose(JSON.stringify({ sourceId: 'web', profileId: NUL }) as never), code: 'invalid_request', message: 'identification.profileId: must not contain U+0000' },
  { name: 'U+0000 in a feed profileId', endpoint: 'feed', body: feed({ profileId: NUL }), code: 'invalid_request', message: 'profileId: must not contain U+0000' },
  { name: 'U+0000 in a catalog id', endpoint: 'catalog', body: [{ id: 'ok' }, { id: NUL }], code: 'invalid_product', message: 'products[1].id: must not contain U+0000' },
  // A lone surrogate is stored as U+FFFD, so the id read back no longer matches: refused.
  { name: 'a lone surrogate in a Choose profileId', endpoint: 'choose', body: choose({ sourceId: 'web', profileId: LONE }), code: 'invalid_request', message: 'identification.profileId: must be well-formed Unicode' },
  { name: 'a lone surrogate in a track profileId', endpoint: 'track', body: { batch: [event({ profileId: LONE })] }, code: 'invalid_event', message: 'batch[0].profileId: must be well-formed Unicode' },
  { name: 'a lone low surrogate in a consent email', endpoint: 'consent', body: consent({ email: 'a\udc00@example.com' }), code: 'invalid_consent', message: 'email: must be well-formed Unicode' },
  // Consent times are BIGINT milliseconds: whole numbers in a Date's range.
  { name: 'a fractional consent validUntil', endpoint: 'consent', body: consent({ validUntil: 1_800_000_000_000.5 }), code: 'invalid_consent', message: 'validUntil: must be a timestamp in milliseconds' },
  { name: 'a consent validUntil of 1e300', endpoint: 'consent', body: consent({ validUntil: 1e300 }), code: 'invalid_consent', message: 'validUntil: must be a timestamp in milliseconds' },
  { name: 'a fractional consent timestamp', endpoint: 'consent', body: consent({ timestamp: 1_700_000_000_000.25 }), code: 'invalid_consent', message: 'timestamp: must be epoch milliseconds or ISO 8601' },
  { name: 'a consent timestamp of 1e300', endpoint: 'consent', body: consent({ timestamp: 1e300 }), code: 'invalid_consent', message: 'timestamp: must be epoch milliseconds or ISO 8601' },
  // Date.parse takes "1" and rolls a day that does not exist over into the next month: ISO 8601 of a real day only.
  { name: 'a consent timestamp of "1"', endpoint: 'consent', body: consent({ timestamp: '1' }), code: 'invalid_consent', message: 'timestamp: must be epoch milliseconds or ISO 8601' },
  { name: 'a consent timestamp before 1970', endpoint: 'consent', body: consent({ timestamp: '1969-12-31T23:59:59Z' }), code: 'invalid_consent', message: 'timestamp: must be epoch milliseconds or ISO 8601' },
  { name: 'a track timestamp on 30 February', endpoint: 'track', body: { batch: [event({ timestamp: '2024-02-30T00:00:00Z' })] }, code: 'invalid_event', message: 'batch[0].timestamp: must be an ISO 8601 date-time' },
  { name: 'a track timestamp at 24:30', endpoint: 'track', body: { batch: [event({ timestamp: '2024-02-03T24:30:00Z' })] }, code: 'invalid_event', message: 'batch[0].timestamp: must be an ISO 8601 date-time' },
  { name: 'a batch sentAt on 31 April', endpoint: 'track', body: { batch: [makeEvent()], sentAt: '2026-04-31T10:00:00Z' }, code: 'invalid_batch', message: 'sentAt: must be an ISO 8601 date-time' },
  // Deep nesting overflowed JSON.stringify's stack: bounded at 32 levels.
  { name: 'deep nesting in track data', endpoint: 'track', body: deep({ batch: [event({ data: { x: '@DEEP@' } })] }), code: 'invalid_event', message: 'batch[0].data.x' },
  { name: 'deep nesting in userAttributes', endpoint: 'track', body: deep({ batch: [event({ type: 'identify', name: 'Identify', userId: 'u1', userAttributes: { x: '@DEEP@' } })] }), code: 'invalid_event', message: 'batch[0].userAttributes.x' },
  { name: 'deep nesting in accountAttributes', endpoint: 'track', body: deep({ batch: [event({ type: 'group', name: 'Group', accountId: 'a1', accountAttributes: { x: '@DEEP@' } })] }), code: 'invalid_event', message: 'batch[0].accountAttributes.x' },
  { name: 'deep nesting in a catalog product', endpoint: 'catalog', body: deep([{ id: 'p9', specs: '@DEEP@' }]), code: 'invalid_product', message: 'products[0].specs' },
  { name: 'deep nesting in a Choose body', endpoint: 'choose', body: deep(choose({ sourceId: 'web', profileId: 'p' }, { extra: '@DEEP@' })), code: 'invalid_request', message: 'extra' },
  // Required ids are present and non-empty strings: null is not an id.
  { name: 'identify with a null userId', endpoint: 'track', body: { batch: [event({ type: 'identify', name: 'Identify', userId: null })] }, code: 'invalid_event', message: 'batch[0].userId: is required for identify events' },
  { name: 'alias with a null anotherUserId', endpoint: 'track', body: { batch: [event({ type: 'alias', name: 'Alias', userId: 'u1', anotherUserId: null })] }, code: 'invalid_event', message: 'batch[0].anotherUserId: is required for alias events' },
  { name: 'group with a null accountId', endpoint: 'track', body: { batch: [event({ type: 'group', name: 'Group', accountId: null })] }, code: 'invalid_event', message: 'batch[0].accountId: is required for group events' },
  // A __proto__ key in a text/plain body is refused as Fastify refuses it in application/json.
  { name: 'a constructor key holding a prototype (text/plain)', endpoint: 'track', body: `{"batch":[${JSON.stringify(makeEvent()).replace('"data":{', '"data":{"constructor":{"prototype":{"x":1}},')}]}`, code: 'invalid_event', message: 'batch[0].data.constructor: must not hold a "prototype" key' },
  { name: 'a __proto__ key (text/plain)', endpoint: 'track', body: `{"batch":[${JSON.stringify(makeEvent()).replace('"data":{', '"data":{"__proto__":{"x":1},')}]}`, code: 'invalid_event', message: 'batch[0].data.__proto__: is not an allowed key' },
];

for (const driver of DRIVERS) {
  describe(`hardening: bad input is refused and changes nothing (${driver.name})`, () => {
    let reader: DatabaseReader;
    // Registered before useApp's hooks, so the reader closes before the database is dropped.
    after(() => reader.close());
    const h = useApp(driver, { config: hardeningConfig() });
    before(async () => {
      reader = await openDatabaseReader(h.db);
    });

    for (const r of REFUSALS) {
      it(`${r.name}: 400 ${r.code} naming the field, nothing stored`, async () => {
        const before = await reader.fingerprint();
        const contentType = r.name.includes('(text/plain)') ? 'text/plain' : 'application/json';
        const res = await send(h.app, r.endpoint, r.body, contentType);
        assert.equal(res.statusCode, ERROR_CODES[r.code].status, res.body.slice(0, 300));
        const { error } = res.json() as { error: { code: string; message: string } };
        assert.equal(error.code, r.code);
        assert.ok(error.message.startsWith(r.message), `message ${JSON.stringify(error.message)} starts with ${JSON.stringify(r.message)}`);
        assert.equal(await reader.fingerprint(), before);
      });
    }

    it('a product event named like an Object.prototype member is stored and moves no product in popular', async () => {
      const views = Array.from({ length: 3 }, () => makeEvent({ type: 'product', name: 'Product viewed', data: { productId: 'p1', quantity: 1 } }));
      const poison = ['constructor', 'toString', 'valueOf', '__proto__', 'hasOwnProperty']
        .map((name) => makeEvent({ type: 'product', name, data: { productId: 'p3', quantity: 1 } }));
      const res = await send(h.app, 'track', { batch: [...views, ...poison] });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { accepted: 8, duplicates: 0 });
      const popular = await send(h.app, 'feed', { profileId: 'viewer', sourceId: 'web', limit: 3, fields: ['title'] });
      assert.equal(popular.statusCode, 200, popular.body);
      // p1 has the only score; p2 and p3 fill in after it in catalog order, so p3 gained nothing from the five.
      assert.deepEqual((popular.json() as { products: { id: string }[] }).products.map((p) => p.id), ['p1', 'p2', 'p3']);
    });

    it('an optional id sent as null is absent: a track event with userId null is stored and links no user', async () => {
      const profileId = `anon-${randomUUID()}`;
      const res = await send(h.app, 'track', { batch: [makeEvent({ profileId, userId: null as never })] });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(await canonicalProfile(h.storage, 'acme/shop', profileId), profileId);
    });
  });
}
