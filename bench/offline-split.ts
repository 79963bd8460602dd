// The held-out split of the offline evaluation (bench/offline-eval.ts), and what the bench itself keeps of the
// training events it has replayed: view counts (the most-viewed baseline) and, for the notes, which products each
// visitor viewed and which products shared a session or an order.
import type { ShopEvent } from './synthetic-shop.js';
import { seededRandom } from './seeded-random.js';

/** One evaluated visitor: the page it landed on in its last session, and what it went on to use there. */
export interface Query {
  profileId: string;
  /** The held-out session's first view: the product the page is about, and the moment the feeds are asked. */
  anchor: string;
  at: number;
  /** Distinct products viewed, carted or ordered later in that session, the anchor excepted. */
  targets: Set<string>;
  /** The visitor had a session before this one. */
  returning: boolean;
}

export interface Split {
  /** Events the service learns from, in time order: every event but the held-out ones. */
  training: { event: ShopEvent; index: number }[];
  queries: Query[];
  /** Visitors whose last session started in the test window with something to predict, before the cap. */
  candidates: number;
}

/**
 * Holds out, for visitors whose last session starts within `testMs` of the end and uses another product after its first
 * view, everything of that session after the first view. At most `maxQueries` visitors are evaluated (a seeded sample
 * when there are more); the others' events all train.
 */
export function splitLastSessions(events: readonly ShopEvent[], testMs: number, maxQueries: number, seed = 5): Split {
  const end = events.length > 0 ? (events[events.length - 1] as ShopEvent).at : 0;
  const sessions = new Map<string, number[]>();
  const lastSession = new Map<string, string>();
  const sessionCount = new Map<string, Set<string>>();
  events.forEach((e, i) => {
    const list = sessions.get(e.sessionId);
    if (list) list.push(i);
    else sessions.set(e.sessionId, [i]);
    lastSession.set(e.profileId, e.sessionId);
    const own = sessionCount.get(e.profileId) ?? new Set<string>();
    own.add(e.sessionId);
    sessionCount.set(e.profileId, own);
  });
  const candidates: { query: Query; heldOut: number[] }[] = [];
  for (const [profileId, sessionId] of lastSession) {
    const indexes = sessions.get(sessionId) as number[];
    const first = events[indexes[0] as number] as ShopEvent;
    if (first.name !== 'Product viewed' || first.at < end - testMs) continue;
    const later = indexes.slice(1);
    const targets = new Set(later.map((i) => (events[i] as ShopEvent).productId));
    targets.delete(first.productId);
    if (targets.size === 0) continue;
    const returning = (sessionCount.get(profileId)?.size ?? 0) > 1;
    candidates.push({ query: { profileId, anchor: first.productId, at: first.at, targets, returning }, heldOut: later });
  }
  let chosen = candidates;
  if (candidates.length > maxQueries) {
    const random = seededRandom(seed);
    chosen = candidates.map((c) => ({ c, key: random() })).sort((a, b) => a.key - b.key).slice(0, maxQueries).map((x) => x.c);
  }
  const heldOut = new Set(chosen.flatMap((c) => c.heldOut));
  const training = events.flatMap((event, index) => (heldOut.has(index) ? [] : [{ event, index }]));
  const queries = chosen.map((c) => c.query).sort((a, b) => a.at - b.at || (a.profileId < b.profileId ? -1 : 1));
  return { training, queries, candidates: candidates.length };
}

/** What the bench keeps of the replayed training events. */
export class ReplayMirror {
  readonly views = new Map<string, number>();
  readonly viewedBy = new Map<string, Set<string>>();
  /** Product → products that shared a session (views and carts) or an order with it. */
  readonly coViewed = new Map<string, Set<string>>();
  readonly coBought = new Map<string, Set<string>>();
  private readonly baskets = new Map<string, Set<string>>();

  add(e: ShopEvent): void {
    if (e.name === 'Product viewed') {
      this.views.set(e.productId, (this.views.get(e.productId) ?? 0) + 1);
      const own = this.viewedBy.get(e.profileId) ?? new Set<string>();
      own.add(e.productId);
      this.viewedBy.set(e.profileId, own);
    }
    const [key, pairs] = e.name === 'Product ordered' ? [`o\n${e.orderId ?? ''}`, this.coBought] : [`s\n${e.sessionId}`, this.coViewed];
    const basket = this.baskets.get(key) ?? new Set<string>();
    if (basket.has(e.productId)) return;
    for (const other of basket) {
      link(pairs, e.productId, other);
      link(pairs, other, e.productId);
    }
    basket.add(e.productId);
    this.baskets.set(key, basket);
  }

  /** The `k` most viewed products so far, `exclude` left out; ties by id. */
  mostViewed(k: number, exclude: string): string[] {
    const top: [string, number][] = [];
    for (const [id, n] of this.views) {
      if (id === exclude) continue;
      if (top.length === k && !better(id, n, top[k - 1] as [string, number])) continue;
      let i = Math.min(top.length, k - 1);
      top[i] = [id, n];
      while (i > 0 && better(id, n, top[i - 1] as [string, number])) {
        top[i] = top[i - 1] as [string, number];
        top[--i] = [id, n];
      }
    }
    return top.map(([id]) => id);
  }
}

function better(id: string, n: number, than: [string, number]): boolean {
  return n > than[1] || (n === than[1] && id < than[0]);
}

function link(pairs: Map<string, Set<string>>, a: string, b: string): void {
  const set = pairs.get(a) ?? new Set<string>();
  set.add(b);
  pairs.set(a, set);
}
