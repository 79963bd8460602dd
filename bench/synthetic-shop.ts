// A synthetic shop for the offline evaluation of recommendations (bench/offline-eval.ts): a catalog and weeks of
// product events, generated from one seed, the same on every run. Its shape follows what shops' logs show (figures for
// the default 6,000 products, 15,000 visitors, 6 weeks, seed 1):
// - Popularity is long-tailed: each product's weight is 1/rank (Zipf, s = 1) over a random ranking, so the top 1 % of
//   products draw 46 % of the views, the top 20 % draw 85 %, and the median product is viewed 4 times in 6 weeks.
//   Categories differ in size (weight 1/(i+1)^0.6) and have their own brands, price level (log-normal) and a few tags.
// - Products have latent complements (a phone's case and charger): four each, two in the product's own category and
//   two in one of its category's two partner categories, chosen by popularity. A visitor goes from a product to one of
//   its complements on 30 % of the next views, and putting a product in the cart adds one of its complements on 30 %
//   of carts: viewed-together and bought-together have structure to learn, which a popularity list cannot see.
// - Visitors have one or two favourite categories; 85 % of sessions stay in one of them (focus), with detours to the
//   focus category's partner category and a little exploration. A session is 1 + an exponential number of views
//   (4.6 views on average; 21 % are single views) 20–120 s apart.
// - Visitors come back: a quarter are regulars (another session with chance 0.75 each time), the rest come back with
//   chance 0.15, after an exponential gap of mean 3 days: 28 % of visitors have two or more sessions (3.4 on average;
//   `returningShare` is the exact share). A returning visitor opens a session on a product it viewed before in 35 % of
//   them (what it did not buy, from its abandoned cart first) and views one again in 8 % of later views: consideration
//   over several visits, which is what `recently-viewed` serves.
// - Carts and orders: 6 % of views are carted (20 % of the views of a product seen in an earlier session); a session
//   with a cart orders it with chance 0.45: one order (`orderId`) of every carted product, 1.6 lines on average, 44 %
//   of orders with two or more, so complements are bought together. 12 % of sessions order: several times a typical
//   shop's 2–4 %, so that 6 weeks of 15,000 visitors hold about 3,000 orders, as a shop with several times the traffic
//   would (bought-together learns from orders only).
// Timestamps start `days` before `endMs`; sessions start uniformly over the period.
import type { ServiceEvent } from '../wire/event.js';
import { seededRandom } from './seeded-random.js';

export type ShopEventName = 'Product viewed' | 'Added to cart' | 'Product ordered';

/** One product event of the synthetic shop. */
export interface ShopEvent {
  name: ShopEventName;
  productId: string;
  profileId: string;
  sessionId: string;
  at: number;
  orderId?: string;
}

/** A catalog product with the fields merchandising rules read. */
export interface ShopProduct {
  id: string;
  title: string;
  price: number;
  currency: string;
  url: string;
  image: string;
  category: string;
  brand: string;
  tags: string[];
  inventory: number;
  available: boolean;
  [field: string]: unknown;
}

export interface ShopOptions {
  seed?: number;
  products?: number;
  visitors?: number;
  days?: number;
  /** When the history ends (epoch ms); every event is before it. */
  endMs: number;
}

export interface SyntheticShop {
  catalog: ShopProduct[];
  /** Every event, in time order (ties in generation order). */
  events: ShopEvent[];
  visitors: number;
  sessions: number;
  /** The share of visitors with two or more sessions. */
  returningShare: number;
  /** Each product's latent complements (what the generator pairs; the evaluation never reads it). */
  complements: Map<string, string[]>;
}

const CATEGORIES = 50;
const COMPLEMENTS = 4;
const TAGS = ['new', 'sale', 'eco', 'premium', 'bundle', 'clearance'];
const DAY_MS = 24 * 3600 * 1000;

/** Picks an index with chance proportional to `weights` (cumulative sums, binary search). */
export function weightedPicker(weights: readonly number[], random: () => number): () => number {
  const cumulative: number[] = [];
  let sum = 0;
  for (const w of weights) cumulative.push((sum += w));
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}

function shuffled(n: number, random: () => number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
}

/** A standard normal draw (Box–Muller). */
function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

interface Catalog {
  products: ShopProduct[];
  /** Per category: draws one of its products by popularity. */
  inCategory: (() => string)[];
  /** Draws a category by its traffic (the sum of its products' weights). */
  category: () => number;
  categoryOf: Map<string, number>;
  partners: number[][];
  complements: Map<string, string[]>;
}

function makeCatalog(n: number, random: () => number): Catalog {
  const rank = shuffled(n, random);
  const weight = rank.map((r) => 1 / (r + 1));
  const pickCategory = weightedPicker(Array.from({ length: CATEGORIES }, (_, i) => 1 / (i + 1) ** 0.6), random);
  const basePrice = Array.from({ length: CATEGORIES }, () => Math.exp(2 + 3 * random()));
  const brands = Array.from({ length: CATEGORIES }, () => 5 + Math.floor(random() * 11));
  const members: number[][] = Array.from({ length: CATEGORIES }, () => []);
  const categoryOf = new Map<string, number>();
  const products = Array.from({ length: n }, (_, i): ShopProduct => {
    // The first CATEGORIES products open one category each: no category is empty, even in a tiny shop.
    const c = i < CATEGORIES ? i : pickCategory();
    members[c]?.push(i);
    categoryOf.set(`p${i}`, c);
    const tags = TAGS.filter(() => random() < 0.12);
    const inventory = Math.floor(random() * 200);
    return {
      id: `p${i}`, title: `Product ${i}`, price: Math.max(1, Math.round((basePrice[c] as number) * Math.exp(0.5 * normal(random)))) - 0.01,
      currency: 'EUR', url: `/p/${i}`, image: `/img/${i}.jpg`, category: `c${c}`,
      brand: `b${c}-${Math.floor(random() * (brands[c] as number))}`, tags, inventory, available: true,
    };
  });
  const inCategory = members.map((list) => {
    const pick = weightedPicker(list.map((i) => weight[i] as number), random);
    return () => `p${list[pick()] as number}`;
  });
  const traffic = members.map((list) => list.reduce((s, i) => s + (weight[i] as number), 0));
  const partners = Array.from({ length: CATEGORIES }, (_, c) => [0, 1].map(() => (c + 1 + Math.floor(random() * (CATEGORIES - 1))) % CATEGORIES));
  const complements = new Map<string, string[]>();
  for (const product of products) {
    const c = categoryOf.get(product.id) as number;
    const partner = (partners[c] as number[])[Math.floor(random() * 2)] as number;
    const chosen = new Set<string>();
    for (let tries = 0; chosen.size < COMPLEMENTS && tries < 20; tries++) {
      const from = chosen.size < COMPLEMENTS / 2 ? c : partner;
      const other = (inCategory[from] as () => string)();
      if (other !== product.id) chosen.add(other);
    }
    complements.set(product.id, [...chosen]);
  }
  return { products, inCategory, category: weightedPicker(traffic, random), categoryOf, partners, complements };
}

/** What the generator remembers of one visitor across its sessions. */
interface Visitor {
  id: string;
  favourites: number[];
  viewed: string[];
  abandoned: string[];
  ordered: Set<string>;
}

function makeSession(
  shop: Catalog, visitor: Visitor, sessionId: string, start: number, random: () => number, out: ShopEvent[],
): void {
  const favourite = random() < 0.85;
  const focus = favourite ? visitor.favourites[Math.floor(random() * visitor.favourites.length)] as number : shop.category();
  const fromCategory = (c: number): string => (shop.inCategory[c] as () => string)();
  const earlier = new Set(visitor.viewed);
  let at = start;
  const cart: string[] = [];
  const view = (productId: string): void => {
    out.push({ name: 'Product viewed', productId, profileId: visitor.id, sessionId, at });
    visitor.viewed.push(productId);
    at += 20_000 + Math.floor(random() * 100_000);
  };
  const addToCart = (productId: string): void => {
    if (cart.includes(productId)) return;
    cart.push(productId);
    out.push({ name: 'Added to cart', productId, profileId: visitor.id, sessionId, at });
    at += 10_000;
  };
  let current: string;
  if (visitor.viewed.length > 0 && random() < 0.35) {
    const back = visitor.abandoned.filter((p) => !visitor.ordered.has(p));
    const from = back.length > 0 && random() < 0.5 ? back : visitor.viewed;
    current = from[Math.floor(random() * from.length)] as string;
  } else {
    current = fromCategory(focus);
  }
  const views = 1 + Math.floor(-Math.log(1 - random()) * 4);
  for (let i = 0; i < Math.min(views, 30); i++) {
    if (i > 0) {
      const r = random();
      const complements = shop.complements.get(current) ?? [];
      if (r < 0.3 && complements.length > 0) current = complements[Math.floor(random() * complements.length)] as string;
      else if (r < 0.75) current = fromCategory(focus);
      else if (r < 0.85) current = fromCategory((shop.partners[focus] as number[])[Math.floor(random() * 2)] as number);
      else if (r < 0.93) current = visitor.viewed[Math.floor(random() * visitor.viewed.length)] as string;
      else current = fromCategory(shop.category());
    }
    view(current);
    if (random() < (earlier.has(current) ? 0.2 : 0.06)) {
      addToCart(current);
      const complements = shop.complements.get(current) ?? [];
      if (complements.length > 0 && random() < 0.3) {
        const extra = complements[Math.floor(random() * complements.length)] as string;
        view(extra);
        addToCart(extra);
      }
    }
  }
  if (cart.length > 0 && random() < 0.45) {
    const orderId = `o-${sessionId}`;
    for (const productId of cart) {
      out.push({ name: 'Product ordered', productId, profileId: visitor.id, sessionId, at, orderId });
      visitor.ordered.add(productId);
    }
  } else {
    visitor.abandoned.push(...cart);
  }
}

/**
 * The synthetic shop for `options.seed` (default 1): the same catalog and events for the same options.
 * @example const shop = generateShop({ seed: 1, products: 6000, visitors: 15000, days: 42, endMs: Date.UTC(2026, 0, 1) });
 */
export function generateShop(options: ShopOptions): SyntheticShop {
  const random = seededRandom(options.seed ?? 1);
  const days = options.days ?? 42;
  const startMs = options.endMs - days * DAY_MS;
  const shop = makeCatalog(options.products ?? 6000, random);
  const events: ShopEvent[] = [];
  const visitors = options.visitors ?? 15_000;
  let sessions = 0;
  let returning = 0;
  for (let v = 0; v < visitors; v++) {
    const first = shop.category();
    const favourites = random() < 0.5 ? [first] : [first, shop.category()];
    const visitor: Visitor = { id: `u${v}`, favourites, viewed: [], abandoned: [], ordered: new Set() };
    const comeBack = random() < 0.25 ? 0.75 : 0.15;
    let at = startMs + Math.floor(random() * (options.endMs - startMs - 2 * 3600_000));
    let own = 0;
    do {
      sessions++;
      own++;
      makeSession(shop, visitor, `s${sessions}`, at, random, events);
      at += Math.floor(-Math.log(1 - random()) * 3 * DAY_MS) + 3600_000;
    } while (random() < comeBack && at < options.endMs - 2 * 3600_000);
    if (own >= 2) returning++;
  }
  // Stable: events of one session at one instant (a cart's order lines) keep their generation order.
  events.sort((a, b) => a.at - b.at);
  return { catalog: shop.products, events, visitors, sessions, returningShare: returning / visitors, complements: shop.complements };
}

/** The event as the track endpoint stores it; `index` makes its eventId (a UUID's shape, the same on every run). */
export function toServiceEvent(e: ShopEvent, index: number): ServiceEvent {
  const data: Record<string, unknown> = { productId: e.productId, quantity: 1 };
  if (e.orderId !== undefined) data.orderId = e.orderId;
  const eventId = `00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
  return {
    eventId, type: 'product', name: e.name, profileId: e.profileId, sessionId: e.sessionId, pageId: `page-${e.sessionId}`,
    timestamp: new Date(e.at).toISOString(), data,
  };
}
