import { guard } from './guarded-listener.js';
import { KEYS, LocalStore } from './local-store.js';
import type { PluginContext } from './plugin.js';

/** One product of a cart addition or an order, as a platform reports it. */
export interface ProductLine {
  productId: string;
  quantity: number;
  variantId?: string;
  /** Per unit, where the platform tells it. */
  price?: number;
  currency?: string;
}

// Pure: a chunk that imports the plugin helpers without these does not run it.
const store = /* @__PURE__ */ new LocalStore();
// Order status / success pages are revisited (bookmarks, e-mail links): an order is reported once per browser.
const ORDERS_KEY = 'svc.reportedOrders';
const ORDERS_KEPT = 20;

/** A positive quantity from a form field or JSON member; anything else counts as one. */
export function toQuantity(value: unknown): number {
  const q = Number(value);
  return q > 0 && Number.isFinite(q) ? q : 1;
}

function data(line: ProductLine, orderId?: string): Record<string, unknown> {
  const d: Record<string, unknown> = { ...line };
  if (orderId) d.orderId = orderId;
  return d;
}

/**
 * `Product viewed`, shaped as `productView()` makes it, and the product becomes the page context that
 * `recommendation()` and the elements use (kept in storage too, as `productView()` does).
 */
export function productViewed(ctx: PluginContext, productId: string): void {
  ctx.setContext({ productId });
  if (!ctx.optedIn()) return;
  store.set(KEYS.productId, productId);
  ctx.emit({ type: 'product', name: 'Product viewed', data: { productId } });
}

/** `Added to cart`, one event per line, as `productAdd()` shapes it. */
export function addedToCart(ctx: PluginContext, lines: ProductLine[]): void {
  for (const line of lines) ctx.emit({ type: 'product', name: 'Added to cart', data: data(line) });
}

/** `Product ordered`, one event per line sharing the platform's order id, at most once per order. */
export function productsOrdered(ctx: PluginContext, orderId: string, lines: ProductLine[]): void {
  if (!ctx.optedIn() || lines.length === 0) return;
  let seen: string[] = [];
  try {
    const parsed: unknown = JSON.parse(store.get(ORDERS_KEY) ?? '[]');
    if (Array.isArray(parsed)) seen = parsed.map(String);
  } catch {
    // a damaged record only risks one duplicate
  }
  if (seen.includes(orderId)) return;
  store.set(ORDERS_KEY, JSON.stringify([...seen, orderId].slice(-ORDERS_KEPT)));
  for (const line of lines) ctx.emit({ type: 'product', name: 'Product ordered', data: data(line, orderId) });
}

/**
 * Runs `read` (which says whether it found the platform's page objects) now and, when the page is still
 * parsing and it found nothing, again at DOMContentLoaded: a script in the head runs before the objects exist.
 */
export function whenReady(plugin: string, read: () => boolean): () => void {
  let found = false;
  const attempt = guard(plugin, () => void (found = read()));
  attempt();
  if (found || document.readyState !== 'loading') return () => {};
  document.addEventListener('DOMContentLoaded', attempt, { once: true });
  return () => document.removeEventListener('DOMContentLoaded', attempt);
}
