// A feed's merchandising rules in the config file and through the management API (SQLite and PostgreSQL): what is
// accepted, and every bad rule refused with invalid_config naming its field, changing nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FeedConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { validateConfig } from '../../../server/config/validate-config.js';
import { unknownFields } from '../../../server/config/unknown-fields.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const ADMIN = 'adm1.s3cret';
const BASE = '/v1/acme/projects/shop';
const FEEDS = 'organizations.acme.projects.shop.feeds';

/** The contract's example feed. */
const EXAMPLE: FeedConfig = {
  id: 2, strategy: 'bought-together', limit: 8, dedupe: true,
  rules: [
    { pin: 'p9', position: 1 },
    { filter: { category: { same: true }, price: { gte: 10 } } },
    { boost: { brand: 'acme' }, factor: 2 },
    { bury: { tags: 'clearance' } },
  ],
  exclude: ['in-cart', 'purchased'], purchasedDays: 30,
  fallback: ['popular-in-category', 'popular'],
};

function config(feeds: unknown[]): ServiceConfigFile {
  const c = testConfig();
  c.organizations.acme!.adminKeys = [ADMIN];
  c.organizations.acme!.projects.shop!.feeds = feeds as FeedConfig[];
  return c;
}

const feed = (extra: Record<string, unknown>): Record<string, unknown> => ({ id: 3, strategy: 'popular', ...extra });

/** [what, feeds, the error message (without the feeds path) or null when valid]. */
const CASES: [string, unknown[], string | null][] = [
  ['the contract example', [EXAMPLE], null],
  ['a relative price range and a free field', [feed({ rules: [{ filter: { price: { gte: { same: 0.5 }, lte: { same: 2 } }, material: 'steel' } }] })], null],
  ['in, eq, tags, inventory, available', [feed({ rules: [{ filter: { brand: { in: ['a', 'b'] }, tags: { eq: 'x' }, inventory: { gte: 1 }, available: true } }] })], null],
  ['explicit ids in exclude, viewed', [feed({ exclude: ['viewed', 'p1', { ids: ['p2', 'p3'] }] })], null],
  ['fallback on another feed', [feed({ fallback: [{ feed: 4 }, 'popular'] }), { id: 4, strategy: 'personalized' }], null],
  ['an unknown field of a rule', [feed({ rules: [{ pin: 'p1', postion: 2 }] })], '[0].rules[0].postion: is not a field of a pin rule (pin, position)'],
  ['a rule of no kind', [feed({ rules: [{ pinned: 'p1' }] })], '[0].rules[0]: must have exactly one of pin, filter, boost or bury'],
  ['a rule of two kinds', [feed({ rules: [{ boost: { brand: 'a' }, bury: { brand: 'b' } }] })], '[0].rules[0]: must have exactly one of pin, filter, boost or bury'],
  ['a pin past the limit', [feed({ limit: 4, rules: [{ pin: 'p1', position: 5 }] })], "[0].rules[0].position: must be at most the feed's limit (4)"],
  ['a pin past 100 without a limit', [feed({ rules: [{ pin: 'p1', position: 101 }] })], "[0].rules[0].position: must be at most the feed's limit (100)"],
  ['a pin at position 0', [feed({ rules: [{ pin: 'p1', position: 0 }] })], '[0].rules[0].position: must be a whole number from 1'],
  ['two pins at one position', [feed({ rules: [{ pin: 'p1', position: 2 }, { pin: 'p2', position: 2 }] })], '[0].rules[1].position: position 2 is already taken by rules[0]'],
  ['a price filter of the wrong type', [feed({ rules: [{ filter: { price: 'cheap' } }] })], '[0].rules[0].filter.price: must be a number'],
  ['gte on a string field', [feed({ rules: [{ filter: { category: { gte: 3 } } }] })], '[0].rules[0].filter.category.gte: compares numbers, and category is not one'],
  ['available as a string', [feed({ rules: [{ filter: { available: 'yes' } }] })], '[0].rules[0].filter.available: must be a boolean'],
  ['a tag that is a number', [feed({ rules: [{ bury: { tags: 5 } }] })], '[0].rules[0].bury.tags: must be a string (a tag)'],
  ['an unknown operator', [feed({ rules: [{ filter: { price: { gt: 3 } } }] })], '[0].rules[0].filter.price.gt: is not an operator: use eq, in, gte, lte or same'],
  ['same: false', [feed({ rules: [{ filter: { category: { same: false } } }] })], '[0].rules[0].filter.category.same: must be true (equal to the field of the product the page is about)'],
  ['an empty in', [feed({ rules: [{ filter: { brand: { in: [] } } }] })], '[0].rules[0].filter.brand.in: must list 1 to 1000 values'],
  ['gte above lte', [feed({ rules: [{ filter: { price: { gte: 50, lte: 10 } } }] })], '[0].rules[0].filter.price: gte is above lte: no product could match'],
  ['a factor of 1', [feed({ rules: [{ boost: { brand: 'a' }, factor: 1 }] })], '[0].rules[0].factor: must be above 1 and at most 100'],
  ['an empty filter', [feed({ rules: [{ filter: {} }] })], '[0].rules[0].filter: must name 1 to 20 catalog fields'],
  ['a bad relative bound', [feed({ rules: [{ filter: { price: { gte: { same: -1 } } } }] })], "[0].rules[0].filter.price.gte.same: must be a factor above 0 (0.8: 80 % of the page product's value)"],
  ['a limit of 0', [feed({ limit: 0 })], '[0].limit: must be a whole number from 1 to 100'],
  ['dedupe as a string', [feed({ dedupe: 'yes' })], '[0].dedupe: must be a boolean'],
  ['purchasedDays without purchased', [feed({ exclude: ['in-cart'], purchasedDays: 7 })], '[0].purchasedDays: is only used with "purchased" in exclude'],
  ['an unknown fallback', [feed({ fallback: ['newest'] })], '[0].fallback[0]: must be one of popular, viewed-together, bought-together, recently-viewed, personalized, popular-in-category, or {"feed": id}'],
  ['a fallback on itself', [feed({ fallback: [{ feed: 3 }] })], '[0].fallback[0].feed: a feed cannot fall back on itself'],
  ['a fallback on a missing feed', [feed({ fallback: [{ feed: 9 }] })], '[0].fallback[0].feed: no feed with id 9 in feeds'],
  ['a cycle of fallbacks', [feed({ fallback: ['popular', { feed: 4 }] }), { id: 4, strategy: 'personalized', fallback: [{ feed: 3 }] }],
    '[0].fallback[1].feed: feeds 3 → 4 → 3 fall back on each other in a cycle'],
  ['a longer cycle', [{ id: 1, strategy: 'popular', fallback: [{ feed: 2 }] }, { id: 2, strategy: 'popular', fallback: [{ feed: 5 }] }, { id: 5, strategy: 'popular', fallback: [{ feed: 1 }] }],
    '[0].fallback[0].feed: feeds 1 → 2 → 5 → 1 fall back on each other in a cycle'],
  ['an exclude object of another shape', [feed({ exclude: [{ products: ['p1'] }] })], '[0].exclude[0].products: is not allowed: product ids are {"ids": [...]}'],
];

describe('feed rules in the config file', () => {
  for (const [what, feeds, message] of CASES) {
    it(`${message === null ? 'accepts' : 'refuses'} ${what}`, () => {
      if (message === null) {
        validateConfig(config(feeds));
        return;
      }
      assert.throws(() => validateConfig(config(feeds)), (error: Error) => {
        assert.equal(error.message, `${FEEDS}${message}`);
        return true;
      });
    });
  }

  it('knows every setting of the contract (no unknown-field warning for the example feed)', () => {
    assert.deepEqual(unknownFields(config([EXAMPLE])), []);
  });
});

for (const driver of DRIVERS) {
  describe(`feed rules through the management API (${driver.name})`, () => {
    const h = useApp(driver, { config: config([{ id: 1, strategy: 'popular' }]) });
    const put = (id: number, body: unknown, headers: Record<string, string> = {}) => h.app.inject({
      method: 'PUT', url: `${BASE}/feeds/${id}`, headers: { authorization: `Bearer ${ADMIN}`, ...headers }, payload: body as Record<string, unknown>,
    });
    const get = (id: number) => h.app.inject({ method: 'GET', url: `${BASE}/feeds/${id}`, headers: { authorization: `Bearer ${ADMIN}` } });

    it('stores and answers the contract example as sent', async () => {
      const { id: _id, ...body } = EXAMPLE;
      const res = await put(2, body);
      assert.equal(res.statusCode, 201, res.body);
      const stored = (await get(2)).json() as Record<string, unknown>;
      for (const key of Object.keys(body)) assert.deepEqual(stored[key], (body as Record<string, unknown>)[key], key);
    });

    it('refuses bad rules with 400 invalid_config naming the field, and changes nothing', async () => {
      const before = (await get(1)).json() as Record<string, unknown>;
      const cases: [unknown, string][] = [
        [{ strategy: 'popular', limit: 4, rules: [{ pin: 'p1', position: 6 }] }, "feed.rules[0].position: must be at most the feed's limit (4)"],
        [{ strategy: 'popular', rules: [{ filter: { price: 'cheap' } }] }, 'feed.rules[0].filter.price: must be a number'],
        [{ strategy: 'popular', rules: [{ boost: { brand: 'a' }, weight: 2 }] }, 'feed.rules[0].weight: is not a field of a boost rule (boost, factor)'],
        [{ strategy: 'popular', fallback: [{ feed: 1 }] }, 'feed.fallback[0].feed: a feed cannot fall back on itself'],
      ];
      for (const [body, message] of cases) {
        const res = await put(1, body, { 'if-match': `"${String(before.version)}"` });
        assert.equal(res.statusCode, 400, res.body);
        assert.deepEqual(res.json(), { error: { code: 'invalid_config', message } });
      }
      assert.deepEqual((await get(1)).json(), before);
    });

    it('refuses a fallback cycle across two feeds, naming the field, and keeps the first feed as it was', async () => {
      assert.equal((await put(7, { strategy: 'popular', fallback: ['popular-in-category'] })).statusCode, 201);
      assert.equal((await put(8, { strategy: 'personalized', fallback: [{ feed: 7 }] })).statusCode, 201);
      const before = (await get(7)).json() as Record<string, unknown>;
      const res = await put(7, { strategy: 'popular', fallback: [{ feed: 8 }] }, { 'if-match': `"${String(before.version)}"` });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error.code, 'invalid_config');
      assert.match(res.json().error.message, /fallback\[0\]\.feed: feeds (7 → 8 → 7|8 → 7 → 8) fall back on each other in a cycle$/);
      assert.deepEqual((await get(7)).json(), before);
    });
  });
}
