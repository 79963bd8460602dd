// AssignmentCache evicts the least recently used unit (a read or a write counts as a use), not the oldest
// inserted: returning visitors stay cached while one-off visitors pass through. Nearly: a unit used while in the
// newer half of the cache is not moved, and is kept for at least a half-bound of new units after that use.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AssignmentCache } from '../../../server/choose/assignment-cache.js';

const P = 'acme/cache';

describe('AssignmentCache eviction order', () => {
  it('keeps a unit that was read since it was inserted', () => {
    const cache = new AssignmentCache(2);
    cache.set(P, 'e', 'u1', 'a');
    cache.set(P, 'e', 'u2', 'b');
    assert.equal(cache.get(P, 'e', 'u1'), 'a');
    cache.set(P, 'e', 'u3', 'c');
    assert.equal(cache.size, 2);
    assert.equal(cache.get(P, 'e', 'u2'), undefined);
    assert.equal(cache.get(P, 'e', 'u1'), 'a');
    assert.equal(cache.get(P, 'e', 'u3'), 'c');
  });

  it('counts a read of another experience of the unit, and a write to the unit, as a use', () => {
    const cache = new AssignmentCache(4);
    cache.set(P, 'e1', 'u1', 'a');
    cache.set(P, 'e1', 'u2', 'a');
    cache.set(P, 'e1', 'u3', 'a');
    // A miss for an experience still marks the unit used (its visitor is back).
    assert.equal(cache.get(P, 'e2', 'u1'), undefined);
    cache.set(P, 'e2', 'u2', 'b');
    // Use order now u3, u1, u2: u3 alone goes when u4's pair pushes the count past 4.
    cache.set(P, 'e1', 'u4', 'a');
    assert.equal(cache.size, 4);
    assert.equal(cache.get(P, 'e1', 'u3'), undefined);
    assert.equal(cache.get(P, 'e1', 'u1'), 'a');
    assert.equal(cache.get(P, 'e2', 'u2'), 'b');
  });

  it('evicts in order of last use across many units, a whole unit at a time', () => {
    const cache = new AssignmentCache(6);
    for (const unit of ['u1', 'u2', 'u3']) {
      cache.set(P, 'e1', unit, 'a');
      cache.set(P, 'e2', unit, 'b');
    }
    // Use order now: u2, u3, u1 (u1 read last, twice in a row).
    cache.get(P, 'e1', 'u2');
    cache.get(P, 'e1', 'u3');
    cache.get(P, 'e1', 'u1');
    cache.get(P, 'e2', 'u1');
    cache.set(P, 'e1', 'u4', 'a');
    assert.equal(cache.size, 5);
    assert.equal(cache.get(P, 'e1', 'u2'), undefined);
    assert.deepEqual(['u3', 'u1', 'u4'].map((u) => cache.get(P, 'e1', u)), ['a', 'a', 'a']);
  });

  it('a unit read while in the newer half stays for half the bound of new units, then goes before later reads', () => {
    const cache = new AssignmentCache(8);
    for (let i = 1; i <= 8; i++) cache.set(P, 'e', `u${i}`, 'a');
    // u6 is in the newer half: the read leaves it in place.
    assert.equal(cache.get(P, 'e', 'u6'), 'a');
    for (let i = 9; i <= 11; i++) cache.set(P, 'e', `u${i}`, 'a');
    assert.deepEqual(['u1', 'u2', 'u3', 'u4', 'u6'].map((u) => cache.get(P, 'e', u)), [undefined, undefined, undefined, 'a', 'a']);
    // u4 and u6 were in the older half when read just now: both moved to the end, and outlive u5, u7 and u8.
    for (let i = 12; i <= 14; i++) cache.set(P, 'e', `u${i}`, 'a');
    assert.deepEqual(['u4', 'u5', 'u6', 'u7', 'u8', 'u9'].map((u) => cache.get(P, 'e', u)), ['a', undefined, 'a', undefined, undefined, 'a']);
    assert.equal(cache.size, 8);
  });

  it('is bounded over every project: a quiet project keeps its share while a busy one evicts its own units', () => {
    const cache = new AssignmentCache(4);
    cache.set('acme/quiet', 'e', 'q1', 'a');
    cache.set('acme/quiet', 'e', 'q2', 'a');
    for (let i = 1; i <= 5; i++) cache.set('acme/busy', 'e', `b${i}`, 'a');
    assert.equal(cache.size, 4);
    assert.deepEqual(['q1', 'q2'].map((u) => cache.get('acme/quiet', 'e', u)), ['a', 'a']);
    assert.deepEqual(['b1', 'b2', 'b3', 'b4', 'b5'].map((u) => cache.get('acme/busy', 'e', u)), [undefined, undefined, undefined, 'a', 'a']);
  });

  it('holds nothing when one unit alone is larger than the bound, and recovers', () => {
    const cache = new AssignmentCache(1);
    cache.set(P, 'e1', 'u1', 'a');
    cache.set(P, 'e2', 'u1', 'b');
    assert.equal(cache.size, 0);
    cache.set(P, 'e1', 'u2', 'c');
    assert.equal(cache.get(P, 'e1', 'u2'), 'c');
    assert.equal(cache.size, 1);
  });
});
