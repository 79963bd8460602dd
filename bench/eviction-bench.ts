// The cost of evicting a bounded cache's oldest entry, per insertion, in a Map in least-recently-used order (the
// per-node caches' shape: server/choose/oldest-first.ts): a new iterator per eviction (`map.keys().next()`) against
// OldestFirst's one iterator, for cache sizes from 1,000 to the service's 50,000 profiles. Rounds alternate.
// `node --import tsx bench/eviction-bench.ts`
import { OldestFirst } from '../server/memory/oldest-first.js';
import { median } from './choose-bench.js';

const SIZES = [1_000, 10_000, 50_000];
const INSERTS = 100_000;
const ROUNDS = 3;

/** µs per insertion into a full cache of `size`: one new key, one key of the newer half used again, one eviction. */
function run(size: number, evict: (map: Map<string, number>) => () => void): number {
  const map = new Map<string, number>();
  for (let i = 0; i < size; i++) map.set(`k${i}`, i);
  const evictOldest = evict(map);
  let next = size;
  const start = process.hrtime.bigint();
  for (let i = 0; i < INSERTS; i++) {
    map.set(`k${next++}`, i);
    const used = `k${next - 1 - (i % 100)}`;
    const value = map.get(used);
    if (value !== undefined && map.delete(used)) map.set(used, value);
    evictOldest();
  }
  return Number(process.hrtime.bigint() - start) / 1000 / INSERTS;
}

const freshIterator = (map: Map<string, number>) => () => {
  const oldest = map.keys().next();
  if (!oldest.done) map.delete(oldest.value);
};
const oneIterator = (map: Map<string, number>) => {
  const oldest = new OldestFirst(map);
  return () => void oldest.take();
};

console.log('| cache size | a new iterator per eviction | OldestFirst | ratio |');
console.log('|---|---|---|---|');
for (const size of SIZES) {
  const fresh: number[] = [];
  const one: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    fresh.push(run(size, freshIterator));
    one.push(run(size, oneIterator));
  }
  const [a, b] = [median(fresh), median(one)];
  console.log(`| ${size.toLocaleString('en')} | ${a.toFixed(2)} µs | ${b.toFixed(2)} µs | ${(b / a).toFixed(2)} |`);
}
