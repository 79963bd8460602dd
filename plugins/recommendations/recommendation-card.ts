import { h, safeUrl, textOf } from '../../src/plugin-api.js';
import { priceText } from './price-text.js';
import type { RecommendedProduct } from './recommendations-element.js';

/**
 * One built-in card: `<li part="item"><a part="link">` holding the image, title and price parts. Without a product, the
 * empty card that holds a product's place while loading, or, `unfilled`, the place of one that did not come (unseen): the
 * same parts, so the same size. Server text goes in as text
 * nodes and attribute values, and a link or image address only if it is http(s) or relative (safeUrl).
 * @example list.replaceChildren(...products.map(card))
 */
export function card(product?: RecommendedProduct, unfilled = false): HTMLLIElement {
  const url = textOf(product?.url);
  const image = textOf(product?.image);
  return h('li', { part: 'item', class: unfilled && 'unfilled' }, h('a', { part: 'link', href: safeUrl(url) && url },
    // alt="" on purpose: the title is the next text in the same link, a screen reader would say it twice. `loading`
    // comes before `src`, which starts the fetch.
    safeUrl(image) ? h('img', { part: 'image', alt: '', loading: 'lazy', src: image, onerror: hide }) : h('span', { part: 'image' }),
    h('span', { part: 'title' }, textOf(product?.title)),
    h('span', { part: 'price' }, product ? priceText(product.price, product.currency) : '')));
}

function hide(e: Event): void {
  // A missing image leaves an empty box of the same size instead of a broken-image icon: nothing moves.
  (e.target as HTMLElement).style.visibility = 'hidden';
}
