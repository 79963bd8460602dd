/**
 * Takes the oldest entries out of a Map in insertion order, for the bounded caches that evict their oldest entry (a
 * Map re-set after a delete is a least-recently-used list).
 *
 * `map.keys().next()` is no way to find the oldest entry of a busy Map: V8 leaves a deleted entry's slot in place
 * until the table is rebuilt, and a new iterator walks every such slot from the start. A cache that evicts one entry
 * per insertion leaves its deleted entries exactly there, so each eviction walked thousands of them
 * (bench/eviction-bench.ts). This keeps ONE iterator, which goes on from where it stopped: a Map's iterator stays valid
 * while the Map changes, passes deleted entries, and reaches the ones added (or moved to the end) after it started.
 * Every live entry is at or after its position, so what it yields next is the oldest.
 * @example const oldest = new OldestFirst(map); map.set(key, value); if (map.size > max) oldest.take();
 */
export class OldestFirst<K, V> {
  private cursor: IterableIterator<[K, V]> | null = null;

  constructor(private readonly map: Map<K, V>) {}

  /** Deletes the map's oldest entry and returns it; undefined when the map is empty. */
  take(): [K, V] | undefined {
    let step = this.cursor?.next();
    // A finished iterator stays finished, even once entries are added: start another (from the first live entry).
    if (step === undefined || step.done) {
      this.cursor = this.map.entries();
      step = this.cursor.next();
    }
    if (step.done) return undefined;
    this.map.delete(step.value[0]);
    return step.value;
  }
}
