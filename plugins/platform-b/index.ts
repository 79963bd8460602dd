// The `platform-b` plugin: Magento 2 storefronts (Luma, Blank and themes built on them).
import {
  addedToCart, guard, listen, productsOrdered, productViewed, toQuantity, whenReady, type ProductLine,
} from '../../src/plugin-api.js';
import type { ServicePlugin } from '../../src/index.js';

const ADD_FORM = '#product_addtocart_form';

/** What Magento's `ajax:addToCart` carries (catalog-add-to-cart.js): the product ids and the form, a jQuery object. */
interface AddToCartDetail {
  productIds?: unknown[];
  form?: HTMLFormElement | ArrayLike<HTMLFormElement>;
}

type JQueryHandler = (event: unknown, data?: AddToCartDetail) => void;
interface JQueryLike {
  (target: Document): { on(type: string, fn: JQueryHandler): unknown; off(type: string, fn: JQueryHandler): unknown };
}
interface MagentoGlobals {
  jQuery?: JQueryLike;
  /** RequireJS, which every Magento 2 storefront page loads first. */
  require?: (deps: string[], callback: (jq: JQueryLike) => void) => void;
}

const field = (form: ParentNode | null | undefined, name: string): string =>
  (form?.querySelector<HTMLInputElement>(`[name="${name}"]`)?.value ?? '').trim();

/**
 * The product id, quantity (`qty`) and chosen configurable child of an add-to-cart form, and the price its product's
 * price box shows (Magento's `data-price-amount` of the final price, and the `priceCurrency` it marks up for search
 * engines), on the product page and in listings.
 */
function formLine(form: HTMLFormElement | null | undefined, productId = field(form, 'product')): ProductLine[] {
  if (!productId) return [];
  const variantId = field(form, 'selected_configurable_option');
  const box = form?.closest('.product-info-main,.product-item');
  const amount = box?.querySelector('[data-price-type=finalPrice]')?.getAttribute('data-price-amount');
  const currency = box?.querySelector('[itemprop=priceCurrency]')?.getAttribute('content');
  return [{
    productId, quantity: toQuantity(field(form, 'qty')), ...(variantId ? { variantId } : {}),
    ...(amount ? { price: +amount } : {}), ...(currency ? { currency } : {}),
  }];
}

/**
 * The cart Magento keeps in the customer-data cache (`mage-cache-storage`), still the ordered one on the success page,
 * with each line's unit price (`product_price_value`, a number; the cache names no currency: the service takes the
 * catalog's).
 */
function cachedCart(): ProductLine[] {
  try {
    const cache = JSON.parse(localStorage.getItem('mage-cache-storage') ?? '{}') as {
      cart?: { items?: { product_id?: unknown; qty?: unknown; product_price_value?: unknown }[] };
    };
    return (cache.cart?.items ?? []).flatMap((i) => (i.product_id ? [{
      productId: String(i.product_id), quantity: toQuantity(i.qty),
      ...(typeof i.product_price_value == 'number' ? { price: i.product_price_value } : {}),
    }] : []));
  } catch {
    return [];
  }
}

/**
 * Magento 2 (`platformB: true`): `Product viewed` on product pages (`body.catalog-product-view`, the add-to-cart
 * form's `product` field or a `data-product-id`), `Added to cart` for the add-to-cart form's post and for
 * Magento's AJAX add (`ajax:addToCart`, through jQuery or as a DOM `CustomEvent` on `document` with
 * `detail: {productIds, form?}`), and `Product ordered` on the checkout success page (order number from the
 * page, products from the customer-data cart). It does nothing unless the config's `platformB` is true.
 * @example svc.use(platformB());
 */
export function platformB(): ServicePlugin {
  return {
    name: 'platform-b',
    setup(ctx) {
      if (!ctx.flag('platformB')) return;
      const body = (): DOMTokenList | undefined => document.body?.classList;
      // Done once the product or the order is found, or once the page is parsed: read while it is still loading (an
      // async or early script), the form or the order number may not be there yet, so it is read again when it is.
      const stopReady = whenReady('platform-b', () => {
        let done = document.readyState !== 'loading';
        if (body()?.contains('catalog-product-view')) {
          const id = field(document.querySelector(ADD_FORM), 'product') || document.querySelector('[data-product-id]')?.getAttribute('data-product-id');
          if (id) {
            productViewed(ctx, id);
            done = true;
          }
        }
        if (body()?.contains('checkout-onepage-success')) {
          // Logged-in customers get a link to the order, guests the number in a span (Magento_Checkout success.phtml).
          const orderId = document.querySelector('.checkout-success .order-number strong, .checkout-success p span')?.textContent?.trim();
          if (orderId) {
            productsOrdered(ctx, orderId, cachedCart());
            done = true;
          }
        }
        return done;
      });

      const onAjaxAdd = (detail: AddToCartDetail | undefined): void => {
        const form = detail?.form instanceof HTMLFormElement ? detail.form : detail?.form?.[0];
        const ids = Array.isArray(detail?.productIds) ? detail.productIds : [];
        addedToCart(ctx, ids.flatMap((id) => formLine(form, String(id))));
      };
      // A jQuery handler also sees DOM events of the same type, without `data`: those are counted below.
      const jqHandler = guard('platform-b', ((_event, data) => active && data && onAjaxAdd(data)) as JQueryHandler);
      let jq: JQueryLike | undefined;
      let active = true;
      const bind = (found: JQueryLike): void => {
        if (!active || typeof found !== 'function') return;
        found(document).on('ajax:addToCart', jqHandler);
        jq = found;
      };
      const g = window as unknown as MagentoGlobals;
      try {
        if (g.jQuery) bind(g.jQuery);
        else if (typeof g.require === 'function') g.require(['jquery'], bind);
      } catch {
        // no usable jQuery: DOM events and form posts are still counted
      }
      const removers = [
        listen<CustomEvent<AddToCartDetail>>(document, 'ajax:addToCart', 'platform-b', (e) => onAjaxAdd(e.detail)),
        // Only posts nobody prevented: Magento's AJAX cart prevents the post and reports it as ajax:addToCart.
        listen<SubmitEvent>(window, 'submit', 'platform-b', (e) => {
          const form = e.target;
          if (e.defaultPrevented || !(form instanceof HTMLFormElement)) return;
          // The product page's form, or a listing's `tocart-form` posting to checkout/cart/add/…/product/<id>/.
          if (!form.matches(ADD_FORM) && !/\/checkout\/cart\/add\//.test(form.getAttribute('action') ?? '')) return;
          addedToCart(ctx, formLine(form));
        }),
      ];
      return () => {
        active = false;
        stopReady();
        for (const remove of removers) remove();
        try {
          jq?.(document).off('ajax:addToCart', jqHandler);
        } catch {
          // a jQuery without .off (older than 1.7): its handler stays bound, and does nothing any more
        }
      };
    },
  };
}
