// OpenFeature's Remote Evaluation Protocol (OFREP) through app.inject(), against SQLite and PostgreSQL: every reason,
// every error, the bulk answer's ETag and 304, keys (401/403), 429, and that a flag is what the Choose API serves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { ExperienceConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import type { Choice } from '../../../wire/choose.js';
import type { OfrepBulkAnswer, OfrepEvaluationSuccess } from '../../../wire/api/ofrep-schema.js';
import { buildApp } from '../../../server/app.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { getAssignment, readExposures } from '../helpers/stored-rows.js';
import { basic } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const P = 'acme/shop';
const FLAGS = '/ofrep/v1/evaluate/flags';
const CHOOSE = '/v1/acme/projects/shop/optimization/choose-api';
const SERVER = { authorization: 'Bearer srv1.s3cret' };
const BROWSER = { authorization: basic('web1.p4ss') };
const AB = [{ name: 'control', weight: 50, body: { title: 'Welcome' } }, { name: 'bold', weight: 50, body: { title: 'Big sale' } }];

export const OFREP_EXPERIENCES: ExperienceConfig[] = [
  { name: 'hero', variations: AB },
  { name: 'shipped', status: 'stopped', winner: 'bold', variations: AB },
  { name: 'halted', status: 'stopped', variations: AB },
  { name: 'sketch', status: 'draft', variations: AB },
  { name: 'welcome-note', body: { text: 'Hello again' } },
  { name: 'vip-note', condition: { plan: 'pro' }, body: { text: 'Thanks, pro' } },
  { name: 'pro-test', condition: { plan: 'pro' }, variations: AB },
  { name: 'half-note', traffic: 50, body: { text: 'Half' } },
  { name: 'dark', traffic: 0, variations: AB },
  { name: 'by-session', stickiness: 'session', variations: AB },
  { name: 'recs', feed: 1, limit: 2 },
];

function config(): ServiceConfigFile {
  return {
    organizations: {
      acme: {
        adminKeys: ['adm1.s3cret'],
        projects: {
          shop: {
            apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web', 'app'], experiences: OFREP_EXPERIENCES,
            // One browser asking many times a second, as this suite does.
            limits: { writeKeyPerSecond: 100_000 },
            feeds: [{ id: 1, strategy: 'popular' }], catalog: [{ id: 'p1', title: 'Mug' }, { id: 'p2', title: 'Pan' }],
          },
          blog: { apiKeys: ['srvblog.x'], writeKeys: ['webblog.y'], sources: ['web'], allowedOrigins: ['https://blog.example'], experiences: [{ name: 'hero', variations: AB }] },
          tight: { apiKeys: ['srvtight.a'], writeKeys: ['webtight.b'], sources: ['web'], limits: { writeKeyPerSecond: 1, apiKeyPerSecond: 1 }, experiences: [{ name: 'hero', variations: AB }] },
        },
      },
    },
  };
}

const NOW = Date.parse('2026-03-02T10:00:00Z');

type Failure = { key?: string; errorCode: string; errorDetails: string };

for (const driver of DRIVERS) {
  describe(`OFREP (${driver.name})`, () => {
    const suite = useApp(driver, { config: config() });

    const post = (url: string, body: unknown, headers: Record<string, string> = SERVER): Promise<LightMyRequestResponse> =>
      suite.app.inject({ method: 'POST', url, headers, payload: body as Record<string, unknown> });

    async function evaluate(key: string, context: Record<string, unknown>, headers: Record<string, string> = SERVER): Promise<OfrepEvaluationSuccess> {
      const res = await post(`${FLAGS}/${encodeURIComponent(key)}`, { context }, headers);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      return res.json() as OfrepEvaluationSuccess;
    }

    async function chooseFor(profileId: string, names: string[], extra: Record<string, unknown> = {}): Promise<Choice[]> {
      const res = await post(CHOOSE, { identification: { sourceId: 'web', profileId }, names, deferExposure: true, ...extra }, BROWSER);
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { choices: Choice[] }).choices;
    }

    const asProfile = (profileId: string, more: Record<string, unknown> = {}) => ({ targetingKey: profileId, sourceId: 'web', ...more });

    it('a running experiment is a SPLIT: the variant and value are what the Choose API serves the same profile', async () => {
      const evaluation = await evaluate('hero', { targetingKey: 'split-1' }, BROWSER);
      const [choice] = await chooseFor('split-1', ['hero']);
      assert.deepEqual(evaluation, { key: 'hero', reason: 'SPLIT', variant: choice!.variation, value: choice!.body });
    });

    it('the first assignment is sticky and shared: OFREP first, then the Choose API, then a server key by sourceId', async () => {
      const profiles = Array.from({ length: 12 }, (_, i) => `sticky-${i}`);
      for (const id of profiles) {
        const first = await evaluate('hero', { targetingKey: id }, BROWSER);
        const stored = await getAssignment(suite.storage, P, 'hero', id);
        assert.equal(stored?.variation, (first ).variant);
        assert.equal((await chooseFor(id, ['hero']))[0]?.variation, stored?.variation);
        assert.equal((await evaluate('hero', asProfile(id))).variant, stored?.variation);
      }
    });

    it('a server key names a user: the variant of the profile an identify linked to it', async () => {
      const browser = await evaluate('hero', { targetingKey: 'user-p1' }, BROWSER) ;
      const event = makeEvent({ type: 'identify', name: 'Identify', profileId: 'user-p1', userId: 'u-42' });
      const tracked = await post('/v1/acme/projects/shop/sources/web/track', { batch: [event] }, BROWSER);
      assert.equal(tracked.statusCode, 200, tracked.body);
      assert.equal((await evaluate('hero', { targetingKey: 'u-42' })).variant, browser.variant);
    });

    it('every reason: STATIC for a winner and a body for everyone, DISABLED without a value, TARGETING_MATCH, DEFAULT', async () => {
      const ctx = { targetingKey: 'reasons-1' };
      assert.deepEqual(await evaluate('shipped', ctx, BROWSER), { key: 'shipped', reason: 'STATIC', variant: 'bold', value: { title: 'Big sale' } });
      assert.deepEqual(await evaluate('welcome-note', ctx, BROWSER), { key: 'welcome-note', reason: 'STATIC', value: { text: 'Hello again' } });
      assert.deepEqual(await evaluate('halted', ctx, BROWSER), { key: 'halted', reason: 'DISABLED' });
      assert.deepEqual(await evaluate('sketch', ctx, BROWSER), { key: 'sketch', reason: 'DISABLED' });
      assert.deepEqual(await evaluate('vip-note', { ...ctx, plan: 'pro' }, BROWSER), { key: 'vip-note', reason: 'TARGETING_MATCH', value: { text: 'Thanks, pro' } });
      assert.deepEqual(await evaluate('vip-note', { ...ctx, plan: 'free' }, BROWSER), { key: 'vip-note', reason: 'DEFAULT' });
      assert.deepEqual(await evaluate('dark', ctx, BROWSER), { key: 'dark', reason: 'DEFAULT' });
    });

    it('an experiment whose condition matched is still a SPLIT; not matched, DEFAULT and nothing stored', async () => {
      assert.equal((await evaluate('pro-test', { targetingKey: 'cond-1', plan: 'pro' }, BROWSER)).reason, 'SPLIT');
      assert.deepEqual(await evaluate('pro-test', { targetingKey: 'cond-2', plan: 'free' }, BROWSER), { key: 'pro-test', reason: 'DEFAULT' });
      assert.equal(await getAssignment(suite.storage, P, 'pro-test', 'cond-2'), null);
    });

    it('a share of traffic: SPLIT for those in it, DEFAULT for the rest, as the Choose API decides', async () => {
      const seen = new Set<string>();
      for (let i = 0; i < 40; i++) {
        const evaluation = await evaluate('half-note', { targetingKey: `half-${i}` }, BROWSER);
        const served = (await chooseFor(`half-${i}`, ['half-note'])).length === 1;
        assert.equal(evaluation.reason, served ? 'SPLIT' : 'DEFAULT');
        seen.add((evaluation as { reason: string }).reason);
      }
      assert.deepEqual([...seen].sort(), ['DEFAULT', 'SPLIT']);
    });

    it('a feed-backed flag is a TARGETING_MATCH whose value is the body the Choose API gives', async () => {
      const evaluation = await evaluate('recs', { targetingKey: 'feed-1' }, BROWSER);
      const value = evaluation.value as { products: unknown[]; recommendationId: string };
      const [choice] = await chooseFor('feed-1', ['recs']);
      assert.equal(evaluation.reason, 'TARGETING_MATCH');
      assert.deepEqual(value.products, (choice!.body as { products: unknown[] }).products);
      assert.equal(typeof value.recommendationId, 'string');
    });

    it('the context\'s other fields are targeting attributes, on top of what identify stored', async () => {
      const event = makeEvent({ type: 'identify', name: 'Identify', profileId: 'attr-1', userId: 'u-attr', userAttributes: { plan: 'pro' } });
      assert.equal((await post('/v1/acme/projects/shop/sources/web/track', { batch: [event] }, BROWSER)).statusCode, 200);
      assert.equal((await evaluate('vip-note', { targetingKey: 'attr-1' }, BROWSER)).reason, 'TARGETING_MATCH');
      assert.equal((await evaluate('vip-note', { targetingKey: 'attr-1', plan: 'free' }, BROWSER)).reason, 'DEFAULT');
    });

    it('exposures: none for a writeKey (the page reports them), one per answer for a server key, as the Choose API', async () => {
      await evaluate('hero', { targetingKey: 'expo-1' }, BROWSER);
      await post(FLAGS, { context: { targetingKey: 'expo-1' } }, BROWSER);
      assert.deepEqual((await readExposures(suite.storage, P)).filter((e) => e.profileId === 'expo-1'), []);
      const served = await evaluate('hero', asProfile('expo-1', { sessionId: 's-1' })) ;
      const rows = (await readExposures(suite.storage, P)).filter((e) => e.profileId === 'expo-1');
      assert.deepEqual(rows.map((e) => [e.experience, e.variation, e.sessionId]), [['hero', served.variant, 's-1']]);
      await evaluate('shipped', asProfile('expo-1'));
      assert.equal((await readExposures(suite.storage, P)).filter((e) => e.profileId === 'expo-1').length, 1, 'a winner is no exposure');
    });

    // Spec as data: each refused evaluation, its status and the protocol's error code.
    const ERRORS: { name: string; key: string; body: unknown; headers?: Record<string, string>; status: number; errorCode: string; details: RegExp }[] = [
      { name: 'an unknown flag', key: 'nope', body: { context: { targetingKey: 'e-1' } }, status: 404, errorCode: 'FLAG_NOT_FOUND', details: /There is no flag "nope"/ },
      { name: 'no targetingKey', key: 'hero', body: { context: { plan: 'pro' } }, status: 400, errorCode: 'TARGETING_KEY_MISSING', details: /context\.targetingKey: is required/ },
      { name: 'no context', key: 'hero', body: {}, status: 400, errorCode: 'TARGETING_KEY_MISSING', details: /targetingKey/ },
      { name: 'a numeric targetingKey', key: 'hero', body: { context: { targetingKey: 7 } }, status: 400, errorCode: 'INVALID_CONTEXT', details: /^context\.targetingKey: must be a string$/ },
      { name: 'a context that is a list', key: 'hero', body: { context: [1] }, status: 400, errorCode: 'INVALID_CONTEXT', details: /^context: must be an object$/ },
      { name: 'an unknown device', key: 'hero', body: { context: { targetingKey: 'e-1', device: 'tv' } }, status: 400, errorCode: 'INVALID_CONTEXT', details: /^context\.device: must be "mobile" or "desktop"$/ },
      { name: 'U+0000 in an attribute', key: 'hero', body: { context: { targetingKey: 'e-1', note: 'a\u0000' } }, status: 400, errorCode: 'INVALID_CONTEXT', details: /^context\.note: must not contain U\+0000$/ },
      { name: 'a session-sticky flag without sessionId', key: 'by-session', body: { context: { targetingKey: 'e-1' } }, status: 400, errorCode: 'INVALID_CONTEXT', details: /sessionId: is required/ },
      { name: 'a user nobody identified (server key)', key: 'hero', body: { context: { targetingKey: 'ghost' } }, headers: SERVER, status: 400, errorCode: 'INVALID_CONTEXT', details: /no profile is linked to user "ghost"/ },
      { name: 'a body that is not JSON', key: 'hero', body: '{"context":', status: 400, errorCode: 'PARSE_ERROR', details: /^The body is not valid JSON\.$/ },
      { name: 'a body that is a list', key: 'hero', body: [1], status: 400, errorCode: 'PARSE_ERROR', details: /must be a JSON object/ },
    ];
    for (const c of ERRORS) {
      it(`answers ${c.status} ${c.errorCode}: ${c.name}, and stores nothing`, async () => {
        const headers = { 'content-type': 'application/json', ...(c.headers ?? BROWSER) };
        const payload = typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
        const res = await suite.app.inject({ method: 'POST', url: `${FLAGS}/${c.key}`, headers, payload });
        assert.equal(res.statusCode, c.status, res.body);
        const body = res.json() as Failure;
        assert.deepEqual(Object.keys(body).sort(), ['errorCode', 'errorDetails', 'key']);
        assert.equal(body.key, c.key);
        assert.equal(body.errorCode, c.errorCode);
        assert.match(body.errorDetails, c.details);
        assert.equal(await getAssignment(suite.storage, P, c.key, 'e-1'), null);
      });
    }

    it('a disabled flag needs no targeting key', async () => {
      assert.deepEqual(await evaluate('halted', {}, BROWSER), { key: 'halted', reason: 'DISABLED' });
    });

    it('bulk: every experience in config order, each as its single evaluation answers', async () => {
      const res = await post(FLAGS, { context: { targetingKey: 'bulk-1', sessionId: 's-b', plan: 'pro' } }, BROWSER);
      assert.equal(res.statusCode, 200, res.body);
      const { flags } = res.json() as OfrepBulkAnswer;
      assert.deepEqual(flags.map((f) => f.key), OFREP_EXPERIENCES.map((e) => e.name));
      for (const flag of flags.filter((f) => f.key !== 'recs')) {
        assert.deepEqual(await evaluate(flag.key, { targetingKey: 'bulk-1', sessionId: 's-b', plan: 'pro' }, BROWSER), flag);
      }
    });

    it('bulk: ETag, then 304 without a body for If-None-Match, and a new tag once the answer changes', async () => {
      const body = { context: { targetingKey: 'etag-1', sessionId: 's-e' } };
      const first = await post(FLAGS, body, BROWSER);
      const tag = String(first.headers.etag);
      assert.match(tag, /^"[0-9a-f]{32}"$/);
      const again = await post(FLAGS, body, { ...BROWSER, 'if-none-match': tag });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      assert.equal(again.headers.etag, tag);
      assert.equal((await post(FLAGS, body, { ...BROWSER, 'if-none-match': `W/${tag}, "other"` })).statusCode, 304);
      const changed = await post(FLAGS, { context: { ...body.context, plan: 'pro' } }, { ...BROWSER, 'if-none-match': tag });
      assert.equal(changed.statusCode, 200);
      assert.notEqual(changed.headers.etag, tag);
    });

    it('bulk without a targeting key: each flag that needs one fails alone, the disabled ones are DISABLED', async () => {
      const res = await post(FLAGS, { context: {} }, BROWSER);
      assert.equal(res.statusCode, 200, res.body);
      const byKey = new Map((res.json() as OfrepBulkAnswer).flags.map((f) => [f.key, f]));
      assert.equal((byKey.get('hero') as Failure).errorCode, 'TARGETING_KEY_MISSING');
      assert.deepEqual(byKey.get('halted'), { key: 'halted', reason: 'DISABLED' });
    });

    it('bulk refused whole: a body that is not JSON, an invalid context (the protocol\'s body without key)', async () => {
      const bad = await suite.app.inject({ method: 'POST', url: FLAGS, headers: { ...BROWSER, 'content-type': 'application/json' }, payload: '{' });
      assert.equal(bad.statusCode, 400);
      assert.deepEqual(bad.json(), { errorCode: 'PARSE_ERROR', errorDetails: 'The body is not valid JSON.' });
      const invalid = await post(FLAGS, { context: { targetingKey: 'x', url: 5 } }, BROWSER);
      assert.deepEqual([invalid.statusCode, invalid.json()], [400, { errorCode: 'INVALID_CONTEXT', errorDetails: 'context.url: must be a string' }]);
    });

    it('configuration: polling, caching and the one value type, with an ETag', async () => {
      const res = await suite.app.inject({ method: 'GET', url: '/ofrep/v1/configuration', headers: { 'x-api-key': 'web1.p4ss' } });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        name: 'svc',
        capabilities: {
          cacheInvalidation: { polling: { enabled: true, minPollingIntervalMs: 1000 } },
          flagEvaluation: { supportedTypes: ['object'] },
          caching: { enabled: true, ttl: 1000 },
        },
      });
      const again = await suite.app.inject({ method: 'GET', url: '/ofrep/v1/configuration', headers: { 'x-api-key': 'web1.p4ss', 'if-none-match': String(res.headers.etag) } });
      assert.equal(again.statusCode, 304);
    });

    it('every way a key may travel answers the same: Basic, X-API-Key and Bearer, a writeKey or an apiKey', async () => {
      const ways = [BROWSER, { 'x-api-key': 'web1.p4ss' }, { authorization: 'Bearer web1.p4ss' }, { authorization: basic('srv1.s3cret') }, { 'x-api-key': 'srv1.s3cret' }];
      const answers = await Promise.all(ways.map((headers) => evaluate('hero', asProfile('ways-1'), headers)));
      for (const answer of answers) assert.deepEqual(answer, answers[0]);
    });

    // Each key failure, answered as every other route answers it.
    const AUTH: { name: string; headers: Record<string, string>; status: number; code: string }[] = [
      { name: 'no key', headers: {}, status: 401, code: 'missing_credentials' },
      { name: 'a wrong secret', headers: { 'x-api-key': 'web1.wrong' }, status: 401, code: 'invalid_credentials' },
      { name: 'a malformed key', headers: { 'x-api-key': 'web1' }, status: 401, code: 'invalid_credentials' },
      { name: 'a malformed Authorization', headers: { authorization: 'Digest x' }, status: 401, code: 'invalid_credentials' },
      { name: 'an admin key', headers: { authorization: 'Bearer adm1.s3cret' }, status: 401, code: 'invalid_credentials' },
      { name: 'a writeKey from an origin its project does not allow', headers: { authorization: basic('webblog.y'), origin: 'https://evil.example' }, status: 403, code: 'origin_not_allowed' },
      { name: 'a source not of the project', headers: SERVER, status: 403, code: 'source_not_allowed' },
    ];
    for (const c of AUTH) {
      it(`answers ${c.status} ${c.code}: ${c.name}`, async () => {
        const context = c.code === 'source_not_allowed' ? asProfile('auth-1', { sourceId: 'pos' }) : { targetingKey: 'auth-1' };
        for (const url of [`${FLAGS}/hero`, FLAGS]) {
          const res = await post(url, { context }, c.headers);
          assert.equal(res.statusCode, c.status, res.body);
          assert.equal((res.json() as { error: { code: string } }).error.code, c.code);
        }
        assert.equal(await getAssignment(suite.storage, P, 'hero', 'auth-1'), null);
      });
    }

    it('an allowed origin is answered, with CORS headers that expose ETag; a preflight allows X-API-Key', async () => {
      const res = await post(FLAGS, { context: { targetingKey: 'cors-1' } }, { authorization: basic('webblog.y'), origin: 'https://blog.example' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['access-control-allow-origin'], 'https://blog.example');
      assert.match(String(res.headers['access-control-expose-headers']), /ETag/);
      const preflight = await suite.app.inject({ method: 'OPTIONS', url: FLAGS, headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
      assert.equal(preflight.statusCode, 204);
      assert.match(String(preflight.headers['access-control-allow-headers']), /X-API-Key/);
    });

    it('the project\'s rate limits: 429 with Retry-After, for a writeKey and for an apiKey with apiKeyPerSecond', async () => {
      // The buckets refill by this app's clock only, which stands still: no request is let through for being slow.
      const app = await buildApp({ config: config(), storage: suite.storage, now: () => NOW });
      try {
        for (const headers of [{ authorization: basic('webtight.b') }, { 'x-api-key': 'srvtight.a' }]) {
          const statuses: number[] = [];
          let limited: LightMyRequestResponse | undefined;
          for (let i = 0; i < 3; i++) {
            const res = await app.inject({ method: 'POST', url: `${FLAGS}/hero`, headers, payload: { context: { targetingKey: 'rl-1', sourceId: 'web' } } });
            statuses.push(res.statusCode);
            if (res.statusCode === 429) limited = res;
          }
          // A budget of 1 a second holds a burst of 2.
          assert.deepEqual(statuses, [200, 200, 429]);
          assert.match(String(limited?.headers['retry-after']), /^\d+$/);
          assert.equal((limited?.json() as { error: { code: string } }).error.code, 'rate_limited');
        }
        const unlimited = await app.inject({ method: 'POST', url: `${FLAGS}/hero`, headers: SERVER, payload: { context: { targetingKey: 'rl-1', sourceId: 'web' } } });
        assert.equal(unlimited.statusCode, 200, 'an apiKey of a project without apiKeyPerSecond is not limited');
      } finally {
        await app.close();
      }
    });
  });
}
