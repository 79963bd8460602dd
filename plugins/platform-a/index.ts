// The `platform-a` plugin: Shopify storefronts.
import {
  addedToCart, listen, productsOrdered, productViewed, toQuantity, whenReady, type ProductLine,
} from '../../src/plugin-api.js';
import type { ServicePlugin } from '../../src/index.js';
import { cartLines, isCartAdd, linesOfAnswer, type CartLine } from './cart-lines.js';
import { watchCartRequests } from './cart-requests.js';

type Id = string | number;

/** The storefront's public objects this plugin reads (Shopify renders them into every page). */
interface ShopifyGlobals {
  ShopifyAnalytics?: {
    meta?: {
      /** The currency the visitor shops in, and each variant's price in it, in cents. */
      currency?: string;
      page?: { pageType?: string };
      product?: { id?: Id; variants?: { id?: Id; price?: number }[] };
    };
  };
  Shopify?: {
    /** The currency the visitor shops in (Shopify Markets), the one the Cart API answers prices in. */
    currency?: { active?: string };
    /** The order status (thank-you) page. */
    checkout?: {
      order_id?: Id;
      /** The order's currency, and each line's unit price in it (a decimal string, `"19.50"`). */
      currency?: string;
      line_items?: { product_id?: Id; variant_id?: Id; quantity?: number; price?: string | number }[];
    };
  };
}

const shopify = (): ShopifyGlobals => window as unknown as ShopifyGlobals;

/** The page's own product, when `variantId` is one of its variants (or it lists none), and that variant. */
function variantOnPage(variantId: string): { productId: string; cents?: number } | undefined {
  const product = shopify().ShopifyAnalytics?.meta?.product;
  if (product?.id === undefined) return undefined;
  const variants = product.variants ?? [];
  const variant = variants.find((v) => String(v.id) === variantId);
  if (variants.length > 0 && !variant) return undefined;
  return { productId: String(product.id), ...(typeof variant?.price === 'number' ? { cents: variant.price } : {}) };
}

/**
 * The products of the lines added, each with its unit price and the shop's currency where the Cart API's
 * answer or the product page says them (Shopify counts in cents; events carry the price itself).
 */
function toProducts(lines: CartLine[], answer: unknown): ProductLine[] {
  const fromAnswer = linesOfAnswer(answer);
  const g = shopify();
  const currency = g.Shopify?.currency?.active ?? g.ShopifyAnalytics?.meta?.currency;
  return lines.flatMap(({ variantId, quantity, productId }) => {
    const answered = fromAnswer.get(variantId);
    const onPage = variantOnPage(variantId);
    const id = answered?.productId ?? productId ?? onPage?.productId;
    const cents = answered?.cents ?? (onPage?.productId === id ? onPage?.cents : undefined);
    return id ? [{
      productId: id, variantId, quantity,
      ...(cents !== undefined && currency ? { price: cents / 100, currency } : {}),
    }] : [];
  });
}

/**
 * Shopify (`platformA: true`): `Product viewed` on product pages, `Added to cart` for `/cart/add` form posts and
 * AJAX adds (`fetch` or XHR to `/cart/add.js`) with the variant, the quantity added and its unit price, and `Product ordered`
 * on the order status page (`Shopify.checkout`); the product page's product becomes the recommendation context.
 * It does nothing unless the config's `platformA` is true.
 * @example svc.use(platformA());
 */
export function platformA(): ServicePlugin {
  return {
    name: 'platform-a',
    setup(ctx) {
      if (!ctx.flag('platformA')) return;
      const stopReady = whenReady('platform-a', () => {
        const g = shopify();
        const product = g.ShopifyAnalytics?.meta?.product;
        if (product?.id !== undefined) productViewed(ctx, String(product.id));
        const checkout = g.Shopify?.checkout;
        if (checkout?.order_id !== undefined && Array.isArray(checkout.line_items)) {
          productsOrdered(ctx, String(checkout.order_id), checkout.line_items.flatMap((item) =>
            item.product_id === undefined ? [] : [{
              productId: String(item.product_id),
              quantity: toQuantity(item.quantity),
              ...(item.variant_id !== undefined ? { variantId: String(item.variant_id) } : {}),
              ...(item.price != null ? { price: +item.price, currency: checkout.currency } : {}),
            }]));
        }
        return product !== undefined || checkout !== undefined;
      });
      const stopRequests = watchCartRequests((lines, answer) => addedToCart(ctx, toProducts(lines, answer)));
      // Bubble phase, and only when nobody prevented the post: a theme that turns the form into an AJAX
      // add prevents it, and its request is counted by the fetch/XHR watch instead (never twice).
      const stopForms = listen<SubmitEvent>(window, 'submit', 'platform-a', (e) => {
        const form = e.target;
        if (e.defaultPrevented || !(form instanceof HTMLFormElement) || !isCartAdd(form.getAttribute('action'))) return;
        addedToCart(ctx, toProducts(cartLines(new FormData(form)), null));
      });
      return () => {
        stopReady();
        stopRequests();
        stopForms();
      };
    },
  };
}
