// Property-based: generated bodies to every endpoint on both drivers. Whatever comes in, the answer is never a 5xx,
// an error is always `{error:{code, message}}` with its code's status, and a refused request stores nothing.
// Seeded and bounded, so a run is repeatable and inside CI's time; a failure prints the seed and the body.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ERROR_CODES } from '../../../server/errors/error-codes.js';
import { openDatabaseReader, type DatabaseReader } from '../helpers/database-fingerprint.js';
import { makeEvent } from '../helpers/events.js';
import { ENDPOINTS, hardeningConfig, send, type EndpointName } from '../helpers/hardening-fixtures.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { useApp } from '../helpers/use-test-app.js';

const SEED = Number(process.env.SVC_FUZZ_SEED ?? 20261124);
/** Bodies per endpoint and driver: 500 keeps CI's time (the seed makes a run repeatable); `SVC_FUZZ_RUNS` for more. */
const RUNS = Number(process.env.SVC_FUZZ_RUNS ?? 500);

/** Replaced after serializing by 40 nested arrays: deeper than the service takes. */
const DEEP = '@DEEP@';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A valid body of each endpoint: the starting point of mutations (fresh event ids each time). */
const VALID: Record<EndpointName, () => Json> = {
  track: () => ({
    batch: [
      makeEvent() as unknown as Json,
      makeEvent({ type: 'product', name: 'Added to cart', data: { productId: 'p2', quantity: 1 } }) as unknown as Json,
      makeEvent({ type: 'identify', name: 'Identify', userId: 'u1', userAttributes: { plan: 'pro', seats: 3 } }) as unknown as Json,
      makeEvent({ type: 'group', name: 'Group', accountId: 'a1', accountAttributes: { tier: 'gold' } }) as unknown as Json,
    ],
  }),
  consent: () => ({
    profileId: 'prof-1', action: 'accept', validUntil: 1_800_000_000_000, sourceId: 'web', category: 'analytics',
    email: 'a@example.com', message: 'ok', eventId: randomUUID(), timestamp: '2025-01-01T00:00:00Z',
  }),
  choose: () => ({
    identification: { sourceId: 'web', profileId: 'prof-1' }, names: ['hero-banner', 'welcome-note'],
    device: 'mobile', sessionId: 'sess-1', url: 'https://shop.example.com/', force: { 'hero-banner': 'bold' },
  }),
  feed: () => ({ profileId: 'prof-1', sourceId: 'web', limit: 4, fields: ['title', 'price'], productId: 'p1' }),
  catalog: () => [
    { id: 'p1', title: 'Mug', price: 12.5, currency: 'EUR', url: '/p/p1', image: '/i/p1.jpg', category: 'kitchen', available: true },
    { id: 'p4', title: 'Plate', price: 8 },
  ] as Json,
  catalogPatch: () => [{ id: 'p1', inventory: 3, available: true }, { id: 'p2', price: 31 }, { id: 'p9', inventory: 0 }] as Json,
};

const nastyText = fc.array(
  fc.oneof(fc.constantFrom('\u0000', '\ud800', '\udc00', 'a', 'é', '😀', '"', '\\', '<b>'), fc.string({ unit: 'binary', maxLength: 3 })),
  { maxLength: 6 },
).map((parts) => parts.join(''));

/** Values a field should never have, and some it may. */
const nasty: fc.Arbitrary<Json> = fc.oneof(
  nastyText,
  fc.constantFrom('', DEEP, 'constructor', '__proto__', 'toString', 'hasOwnProperty', 'x'.repeat(300), 'hero-banner', 'web'),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(1e300, -1, 0, 0.5, 2 ** 53 + 2, 1_800_000_000_000.5),
  fc.boolean(),
  fc.constant(null),
  fc.array(nastyText, { maxLength: 3 }),
  fc.dictionary(fc.oneof(nastyText, fc.constantFrom('__proto__', 'constructor', 'prototype')), nastyText, { maxKeys: 3 }),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
);

/** Every path to a value inside `value` ([] is the root). */
function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const paths = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => paths.push(...pathsOf(v, [...prefix, i])));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths.push(...pathsOf(v, [...prefix, k]));
  return paths;
}

type Mutation = { pick: number; op: 'replace' | 'delete' | 'add'; value: Json; key: string };

/** `body` with one mutation applied at the picked path (a copy; the root can only be replaced). */
function mutate(body: Json, m: Mutation): Json {
  const copy = JSON.parse(JSON.stringify(body)) as Json;
  const paths = pathsOf(copy);
  const path = paths[m.pick % paths.length]!;
  if (path.length === 0) return m.value;
  let parent = copy as Record<string | number, Json>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, Json>;
  const last = path[path.length - 1]!;
  if (m.op === 'delete') delete parent[last];
  else if (m.op === 'add' && typeof parent[last] === 'object' && parent[last] !== null && !Array.isArray(parent[last])) {
    Object.defineProperty(parent[last], m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
  } else parent[last] = m.value;
  return copy;
}

/** A body as sent: JSON text, with deep nesting spliced in where the sentinel stands. */
function bodyFor(endpoint: EndpointName): fc.Arbitrary<string> {
  const mutation = fc.record({
    pick: fc.nat(),
    op: fc.constantFrom<Mutation['op']>('replace', 'replace', 'delete', 'add'),
    value: nasty,
    key: fc.oneof(nastyText, fc.constantFrom('__proto__', 'constructor', 'extra')),
  });
  const json = fc.oneof(
    { weight: 6, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }).map((ms) => ms.reduce(mutate, VALID[endpoint]())) },
    { weight: 1, arbitrary: fc.constant(null).map(() => VALID[endpoint]()) },
    { weight: 1, arbitrary: nasty },
  ).map((value) => JSON.stringify(value).replaceAll(`"${DEEP}"`, `${'['.repeat(40)}${']'.repeat(40)}`));
  return fc.oneof({ weight: 9, arbitrary: json }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) });
}

const NDJSON = 'application/x-ndjson';

/** The catalog takes NDJSON too: a product a line. */
function contentTypes(endpoint: EndpointName): string[] {
  const json = ['application/json', 'text/plain', 'application/json; charset=utf-8'];
  return endpoint === 'catalog' ? [...json, NDJSON] : json;
}

/** A JSON array's items as NDJSON lines; anything else as it is (one line, or text that is not JSON). */
function ndjsonOf(body: string): string {
  try {
    const value = JSON.parse(body) as unknown;
    return Array.isArray(value) ? value.map((item) => JSON.stringify(item)).join('\n') : body;
  } catch {
    return body;
  }
}

for (const driver of DRIVERS) {
  describe(`fuzz: generated bodies to every endpoint (${driver.name})`, () => {
    let reader: DatabaseReader;
    // Registered before useApp's hooks, so the reader closes before the database is dropped.
    after(() => reader.close());
    const h = useApp(driver, { config: hardeningConfig() });
    before(async () => {
      reader = await openDatabaseReader(h.db);
    });

    for (const endpoint of Object.keys(ENDPOINTS) as EndpointName[]) {
      it(`${endpoint}: never a 5xx, errors in our shape, nothing stored when refused (seed ${SEED}, ${RUNS} runs)`, async () => {
        let stored: string | null = null;
        const counts = { accepted: 0, refused: 0 };
        await fc.assert(
          fc.asyncProperty(bodyFor(endpoint), fc.constantFrom(...contentTypes(endpoint)), async (body, contentType) => {
            stored ??= await reader.fingerprint();
            const res = await send(h.app, endpoint, contentType === NDJSON ? ndjsonOf(body) : body, contentType);
            assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`);
            if (res.statusCode < 400) {
              counts.accepted++;
              // What an accepted batch adds to the models is applied behind its answer: let it land before the next read.
              await h.app.svc.models.settle();
              stored = null;
              return;
            }
            counts.refused++;
            const answer = res.json() as { error: { code: keyof typeof ERROR_CODES; message: string } };
            assert.deepEqual(Object.keys(answer), ['error']);
            assert.equal(ERROR_CODES[answer.error.code]?.status, res.statusCode, res.body);
            assert.equal(typeof answer.error.message, 'string');
            assert.equal(await reader.fingerprint(), stored, `a refused request changed the database: ${res.body}`);
          }),
          { seed: SEED, numRuns: RUNS, endOnFailure: true },
        );
        // The generator reaches both sides: bodies that are taken and bodies that are refused.
        assert.ok(counts.accepted > 0 && counts.refused > 0, JSON.stringify(counts));
      });
    }
  });
}
