// OldestFirst takes a Map's entries oldest first with one iterator that goes on where it stopped: what it takes must
// be the Map's first entry in insertion order however the Map changed in between (moves, deletes, additions, being
// emptied and refilled), as `map.keys().next()` would find it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OldestFirst } from '../../../server/memory/oldest-first.js';
import { ProjectScopedMap } from '../../../server/memory/project-scoped-map.js';
import { TokenBucketStore } from '../../../server/http/token-bucket-store.js';

describe('OldestFirst', () => {
  it('takes entries in insertion order, a moved entry at its new place, a deleted one never', () => {
    const map = new Map([['a', 1], ['b', 2], ['c', 3], ['d', 4]]);
    const oldest = new OldestFirst(map);
    assert.deepEqual(oldest.take(), ['a', 1]);
    // Moved to the end (deleted and set again), as the caches mark a use.
    map.delete('b');
    map.set('b', 20);
    map.delete('c');
    map.set('e', 5);
    assert.deepEqual(oldest.take(), ['d', 4]);
    assert.deepEqual(oldest.take(), ['b', 20]);
    assert.deepEqual(oldest.take(), ['e', 5]);
    assert.equal(oldest.take(), undefined);
    assert.equal(map.size, 0);
    // Once it ran out, entries added later are still found.
    map.set('f', 6);
    assert.deepEqual(oldest.take(), ['f', 6]);
  });

  it('agrees with a fresh iterator over a long run of sets, moves and takes', () => {
    const map = new Map<string, number>();
    const oldest = new OldestFirst(map);
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 20_000; i++) {
      map.set(`k${i}`, i);
      if (i % 3 === 0) {
        const moved = `k${i - random(50)}`;
        const value = map.get(moved);
        if (value !== undefined && map.delete(moved)) map.set(moved, value);
      }
      if (map.size > 500) {
        const expected = map.keys().next().value;
        assert.equal(oldest.take()?.[0], expected);
      }
    }
    assert.equal(map.size, 500);
  });

  it('also when the map is emptied by clear() and filled again', () => {
    const map = new Map([['a', 1], ['b', 2]]);
    const oldest = new OldestFirst(map);
    assert.deepEqual(oldest.take(), ['a', 1]);
    map.clear();
    map.set('c', 3);
    map.set('d', 4);
    assert.deepEqual(oldest.take(), ['c', 3]);
    assert.deepEqual(oldest.take(), ['d', 4]);
  });
});

describe('bounded maps at a production-sized bound', () => {
  it('ProjectScopedMap keeps exactly the newest entries past its bound', () => {
    const map = new ProjectScopedMap<number>(50_000);
    for (let i = 0; i < 120_000; i++) map.set('acme/shop', `p${i}`, i);
    assert.equal(map.size, 50_000);
    assert.equal(map.get('acme/shop', 'p69999'), undefined);
    assert.equal(map.get('acme/shop', 'p70000'), 70_000);
    assert.equal(map.get('acme/shop', 'p119999'), 119_999);
  });

  it('the rate-limit store forgets the least recently used bucket first', () => {
    let now = 0;
    const store = new TokenBucketStore(() => now);
    const take = (key: string): number => {
      let current = -1;
      store.incr(key, (_error, result) => { current = result.current; }, 1000, 2);
      return current;
    };
    // Empties the bucket of 'kept' and of 'dropped' (two tokens each).
    for (const key of ['dropped', 'kept']) for (let i = 0; i < 2; i++) take(key);
    // 'kept' is used again (still empty), then 50,000 other keys pass through: 'dropped' is the oldest and goes.
    assert.equal(take('kept'), 3);
    for (let i = 0; i < 49_999; i++) take(`ip-${i}`);
    assert.equal(take('kept'), 3, 'the recently used bucket is kept: still empty');
    assert.equal(take('dropped'), 1, 'the forgotten bucket starts full again');
  });
});
