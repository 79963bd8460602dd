// The offline evaluation of recommendations (bench/offline-eval.ts): its metrics on lists scored by hand, its synthetic
// shop the same for the same seed, its held-out split, and a small replay through the real service. The full-size
// run (6,000 products, 15,000 visitors) is `npm run bench`; this one is small so that it fits in the test run.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { dcgAt, ndcgAt, pairedDifference, precisionAt, recallAt, ScoreBoard } from '../../../bench/offline-metrics.js';
import { offlineEvalOptionsFromEnv, runOfflineEval, STRATEGIES } from '../../../bench/offline-eval.js';
import { ReplayMirror, splitLastSessions } from '../../../bench/offline-split.js';
import { generateShop, type ShopEvent } from '../../../bench/synthetic-shop.js';

const close = (actual: number, expected: number, what: string): void => {
  assert.ok(Math.abs(actual - expected) < 1e-4, `${what}: ${actual}, expected ${expected}`);
};

describe('ranking metrics on a list scored by hand', () => {
  // Relevant: a, b, c, d. Answered: a (1st), b (3rd), c (6th); d is never answered.
  const answered = ['a', 'x', 'b', 'y', 'z', 'c', 'v', 'w', 'u', 't'];
  const relevant = new Set(['a', 'b', 'c', 'd']);

  it('precision@k: 2 of the first 5, 3 of the first 10', () => {
    assert.equal(precisionAt(5, answered, relevant), 0.4);
    assert.equal(precisionAt(10, answered, relevant), 0.3);
  });

  it('recall@k: 2 of 4 relevant in the first 5, 3 of 4 in the first 10', () => {
    assert.equal(recallAt(5, answered, relevant), 0.5);
    assert.equal(recallAt(10, answered, relevant), 0.75);
  });

  it('NDCG@5: (1 + 1/2) / (1 + 0.6309 + 1/2 + 0.4307) = 0.5856', () => {
    close(dcgAt(5, answered, relevant), 1.5, 'DCG@5');
    close(ndcgAt(5, answered, relevant), 0.5856, 'NDCG@5');
  });

  it('NDCG@10: (1 + 1/2 + 0.3562) / 2.5616 = 0.7246', () => {
    close(ndcgAt(10, answered, relevant), 0.7246, 'NDCG@10');
  });

  it('a perfect list scores NDCG 1, a list with no relevant product 0, and nothing relevant scores 0 everywhere', () => {
    assert.equal(ndcgAt(10, ['d', 'c', 'b', 'a'], relevant), 1);
    assert.equal(ndcgAt(10, ['x', 'y'], relevant), 0);
    assert.equal(ndcgAt(10, answered, new Set()), 0);
    assert.equal(recallAt(10, answered, new Set()), 0);
  });

  it('a product answered twice counts once, and a short list still has k slots', () => {
    assert.equal(precisionAt(5, ['a', 'a'], relevant), 0.2);
    close(ndcgAt(5, ['a', 'a'], relevant), 1 / 2.5616, 'NDCG@5 with a duplicate');
  });

  it('coverage: the distinct products of every first 10 over the catalog size', () => {
    const board = new ScoreBoard();
    board.add(['a', 'b'], relevant);
    board.add(['b', 'c'], new Set(['c']));
    const scores = board.scores(10);
    assert.equal(scores.coverage, 0.3);
    assert.equal(scores.queries, 2);
    close(scores.recall10, (0.5 + 1) / 2, 'mean recall@10');
  });

  it('paired difference: mean 2 and half-width 1.96 · 1/√3 for differences 1, 2, 3', () => {
    const d = pairedDifference([1, 2, 3], [0, 0, 0]);
    assert.equal(d.mean, 2);
    close(d.halfWidth, 1.96 / Math.sqrt(3), 'half-width');
  });
});

describe('the synthetic shop', () => {
  const options = { seed: 3, products: 300, visitors: 400, days: 21, endMs: Date.UTC(2026, 0, 1) };

  it('is the same catalog and the same events for the same seed', () => {
    const a = generateShop(options);
    const b = generateShop(options);
    assert.deepEqual(b.catalog, a.catalog);
    assert.deepEqual(b.events, a.events);
    assert.ok(a.events.length > 1000, `${a.events.length} events`);
  });

  it('is another history for another seed', () => {
    assert.notDeepEqual(generateShop({ ...options, seed: 4 }).events, generateShop(options).events);
  });

  it('has events in time order before the end, returning visitors, and orders of several products', () => {
    const shop = generateShop(options);
    shop.events.forEach((e, i) => {
      assert.ok(e.at < options.endMs, `event ${i} after the end`);
      if (i > 0) assert.ok(e.at >= (shop.events[i - 1] as ShopEvent).at, `event ${i} out of order`);
    });
    assert.ok(shop.returningShare > 0.1 && shop.returningShare < 0.6, `returning share ${shop.returningShare}`);
    const lines = new Map<string, number>();
    for (const e of shop.events) if (e.orderId !== undefined) lines.set(e.orderId, (lines.get(e.orderId) ?? 0) + 1);
    assert.ok([...lines.values()].some((n) => n >= 2), 'no order of two products or more');
  });

  it('the bench evaluates at least 5,000 products by default', () => {
    assert.ok((offlineEvalOptionsFromEnv({}).products ?? 0) >= 5000);
  });
});

describe('the held-out split', () => {
  const view = (profileId: string, sessionId: string, productId: string, at: number): ShopEvent => ({ name: 'Product viewed', profileId, sessionId, productId, at });
  const events: ShopEvent[] = [
    view('u1', 's1', 'p1', 1), view('u1', 's1', 'p2', 2),
    view('u2', 's2', 'p1', 3),
    view('u1', 's3', 'p3', 100), view('u1', 's3', 'p1', 101), view('u1', 's3', 'p3', 102),
    { name: 'Added to cart', profileId: 'u1', sessionId: 's3', productId: 'p4', at: 103 },
    view('u2', 's2', 'p2', 104),
  ];

  it('holds out the last session after its first view: its products but the anchor are the targets', () => {
    const split = splitLastSessions(events, 50, 10);
    assert.equal(split.queries.length, 1, 'u2 started its last session before the test window');
    const q = split.queries[0];
    assert.deepEqual({ ...q, targets: [...(q?.targets ?? [])] }, { profileId: 'u1', anchor: 'p3', at: 100, targets: ['p1', 'p4'], returning: true });
    assert.deepEqual(split.training.map((t) => t.index), [0, 1, 2, 3, 7]);
  });

  it('the most-viewed baseline ranks by training views, ties by id, without the anchor', () => {
    const mirror = new ReplayMirror();
    for (const e of events) mirror.add(e);
    assert.deepEqual(mirror.mostViewed(2, 'p3'), ['p1', 'p2']);
    assert.deepEqual(mirror.mostViewed(2, 'p1'), ['p2', 'p3']);
    assert.deepEqual([...(mirror.coViewed.get('p3') ?? [])].sort(), ['p1', 'p4']);
  });
});

describe('a small replay through the service', () => {
  it('scores every strategy and both baselines on the same visitors, and learned lists beat random', async () => {
    const r = await runOfflineEval({ seed: 2, products: 400, visitors: 600, days: 21, maxQueries: 60 });
    assert.ok(r.queries > 20, `${r.queries} visitors evaluated`);
    const feeds = r.rows.filter((row) => row.rules === 'none').map((row) => row.feed);
    assert.deepEqual(feeds, ['random', 'most-viewed', ...STRATEGIES]);
    assert.equal(r.rows.length, 2 + STRATEGIES.length * (r.rules === 'supported' ? 2 : 1));
    for (const row of r.rows) {
      assert.equal(row.scores.queries, r.queries, row.feed);
      for (const [name, value] of Object.entries(row.scores)) {
        if (name !== 'queries') assert.ok(value >= 0 && value <= 1, `${row.feed} ${name} = ${value}`);
      }
    }
    const ndcg = (feed: string): number => r.rows.find((row) => row.feed === feed && row.rules === 'none')?.scores.ndcg10 ?? NaN;
    assert.ok(ndcg('viewed-together') > ndcg('random'), `viewed-together ${ndcg('viewed-together')} vs random ${ndcg('random')}`);
    assert.ok(ndcg('popular') > ndcg('random'), `popular ${ndcg('popular')} vs random ${ndcg('random')}`);
  });
});

describe('docs/offline-evaluation.md', () => {
  it('names only files that exist', () => {
    const markdown = readFileSync('docs/offline-evaluation.md', 'utf8');
    const paths = [...markdown.matchAll(/`((?:bench|test|server|docs)\/[\w./-]+\.(?:ts|md))`/g)].map((m) => m[1] as string);
    assert.ok(paths.length >= 5, `${paths.length} paths`);
    for (const path of paths) assert.ok(existsSync(path), `${path} does not exist`);
  });
});
