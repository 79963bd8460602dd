// The rate limit's token bucket (server/http/token-bucket-store.ts) with a clock the test moves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenBucketStore } from '../../../server/http/token-bucket-store.js';

function take(store: TokenBucketStore, key = 'k'): { current: number; ttl: number } {
  let result: { current: number; ttl: number } | undefined;
  store.incr(key, (_error, r) => { result = r; }, 1000, 2);
  return result!;
}

describe('token bucket', () => {
  it('allows the burst, then refuses until time refills a token', () => {
    let clock = 1_000_000;
    const store = new TokenBucketStore(() => clock);
    assert.ok(take(store).current <= 2);
    assert.ok(take(store).current <= 2);
    assert.equal(take(store).current, 3, 'over the burst');
    clock += 500;
    assert.ok(take(store).current <= 2, 'half a window refills one token of two');
  });

  it('keeps its tokens when the clock steps back, and asks for no absurd wait', () => {
    let clock = 1_000_000;
    const store = new TokenBucketStore(() => clock);
    take(store);
    clock -= 86_400_000;
    const after = take(store);
    assert.ok(after.current <= 2, 'the second token of the burst is still there');
    const refused = take(store);
    assert.equal(refused.current, 3);
    assert.ok(refused.ttl <= 1000, `a wait of ${refused.ttl} ms, not a day`);
  });
});
