import { bindFields, h, InstanceSlot, SvcElement } from '../../src/plugin-api.js';
import type { EventDraft } from '../../src/index.js';
import { card } from './recommendation-card.js';
import { requestProducts, type FeedAsker } from './feed-batcher.js';
import { recommendationsStyles } from './recommendations-styles.js';

export type RecommendationsStatus = 'loading' | 'ready' | 'empty' | 'error';

/** One product of a feed answer: `id` and the fields asked for. */
export interface RecommendedProduct {
  id: string;
  [field: string]: unknown;
}

/**
 * What the element needs from an SDK instance; the `recommendations()` plugin gives it the instance's. With
 * `recommendations`, the widgets of a page ask together and never show one product twice (feed-batcher.ts).
 */
export interface RecommendationSource extends FeedAsker {
  emit(draft: EventDraft): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'svc-recommendations': SvcRecommendations;
  }
}

const sources = new InstanceSlot<RecommendationSource>();
// Elements that connected before any SDK instance existed; they fetch as soon as one registers.
const waiting = new Set<SvcRecommendations>();
sources.watch((source) => {
  if (!source) return;
  for (const el of waiting) void el.refresh();
  waiting.clear();
});

/**
 * Set by the `recommendations()` plugin before it defines the tag, so every element that upgrades has an
 * instance to fetch through and track with (the last set). Returns its remover, which clears it only while it is
 * still the one set.
 */
export function setRecommendationSource(next: RecommendationSource | undefined): () => void {
  return sources.set(next);
}

// The element's properties, as Lit's `static properties` made them: accessors that render again when set to another
// value (Object.is), reflected to an attribute only for `status`.
const PROPERTIES = ['feed', 'limit', 'fields', 'productId', 'lazy', 'status', 'products'] as const;
type Property = (typeof PROPERTIES)[number];
/** The properties whose change fetches the feed again. */
const QUERY: Property[] = ['feed', 'limit', 'fields', 'productId'];

/**
 * `<svc-recommendations feed="1" limit="4" fields="title,price,image,url" product-id="p1" lazy>` shows a
 * recommendation feed: built-in cards (a list of links with image, title and price), or the page's own
 * `<template>` child filled per product through `data-field` (text) and `data-field-<attribute>` bindings —
 * text only, never server HTML. Slots `loading`, `empty` and `error` show in those states; the `status`
 * attribute reflects the state. With the built-in cards the element holds its final size from the start (`limit`
 * empty cards of fixed height while loading; the same box, empty, if nothing comes, and the unseen cells of the products
 * that did not come when fewer come, unless `collapse`): nothing
 * below it moves when the products arrive. Tracks `Product impression` (an item at least half visible, once per item
 * per render) and `Product clicked`, both with `{productId, position, feed, recommendationId}`. The widgets of a page
 * ask together and never show a product another one shows, unless their feed sets `dedupe: false`.
 *
 * @tagname svc-recommendations
 * @summary Shows a recommendation feed as built-in cards or the page's own template, and tracks impressions and clicks.
 *
 * @attr feed - The feed's id.
 * @attr limit - How many products to ask for (default 4).
 * @attr fields - Comma-separated product fields to ask for (default `title,price,currency,image,url`).
 * @attr product-id - The product the page is about; default: the page context, else the last product viewed.
 * @attr lazy - Fetch only once the element comes within 300px of the viewport.
 * @attr collapse - Give up the reserved box when the element settles `empty` or `error`, and the empty cells when
 *   fewer products come than `limit` (by default it keeps the size of `limit` cards, so nothing below it moves).
 * @attr status - Reflected, read-only: `loading` (also while no SDK instance is registered), `ready`, `empty` (the
 *   feed has no products) or `error` (no answer, or attributes the SDK refuses).
 *
 * @slot - With a `<template>` child: the generated list (a light-DOM `<ul role="list">`, one `<li>` per product),
 *   styled by the page; shown in state `ready`.
 * @slot loading - Shown in state `loading`.
 * @slot empty - Shown in state `empty`.
 * @slot error - Shown in state `error`.
 *
 * @fires svc:product - On `window`, from the SDK instance, while tracking is allowed: `Product impression` and
 *   `Product clicked`; `detail` is `{eventName, event}`, `event.data` being `{productId, position, feed, recommendationId}`.
 * @fires svc:event - On `window`, from the SDK instance, right after each `svc:product`; `detail` is the event.
 *
 * @csspart list - The built-in cards' list.
 * @csspart item - One card's list item.
 * @csspart link - A card's link to the product (the card itself).
 * @csspart image - A card's image (a square box); an empty box while loading, without an image, or if it fails to load.
 * @csspart title - A card's product title.
 * @csspart price - A card's price, in the visitor's locale and the product's currency.
 *
 * @cssprop [--svc-recommendations-min-width=10rem] - The narrowest a card gets before the grid drops a column.
 * @cssprop [--svc-recommendations-gap=1rem] - Space between the cards.
 * @cssprop [--svc-recommendations-padding=0.75rem] - Padding inside a card.
 * @cssprop [--svc-recommendations-border=1px solid #c8c8cc] - A card's border.
 * @cssprop [--svc-recommendations-radius=8px] - A card's corner radius.
 *
 * @example
 * <svc-recommendations feed="1" limit="4" lazy>
 *   <p slot="empty">Nothing to suggest yet.</p>
 *   <template><a data-field-href="url"><img data-field-src="image" data-field-alt="title"><b data-field="title"></b></a></template>
 * </svc-recommendations>
 */
export class SvcRecommendations extends SvcElement {
  static override styles = recommendationsStyles;
  static observedAttributes = ['feed', 'limit', 'fields', 'product-id', 'lazy', 'status'];

  static {
    // Each property an accessor over #values (see PROPERTIES).
    for (const key of PROPERTIES) {
      Object.defineProperty(this.prototype, key, {
        get(this: SvcRecommendations) {
          return this.#values[key];
        },
        set(this: SvcRecommendations, value: unknown) {
          this.#set(key, value);
        },
      });
    }
  }

  /**
   * The feed's id.
   * @attr feed
   * @default 0
   */
  declare feed: number;
  /**
   * How many products to ask for.
   * @attr limit
   * @default 4
   */
  declare limit: number;
  /**
   * Comma-separated product fields to ask for; the built-in cards show title, price + currency, image, url.
   * @attr fields
   * @default 'title,price,currency,image,url'
   */
  declare fields: string;
  /**
   * The product the page is about; default: the page context, else the last product viewed.
   * @attr product-id
   */
  declare productId: string | undefined;
  /**
   * Fetch only when the element comes near the viewport.
   * @attr lazy
   */
  declare lazy: boolean;
  /**
   * The state, reflected to the `status` attribute.
   * @attr status
   * @reflect
   * @default 'loading'
   */
  declare status: RecommendationsStatus;
  /**
   * The products of the last answer (state: no attribute).
   * @default []
   */
  declare products: RecommendedProduct[];
  #values: Record<string, unknown> = { feed: 0, limit: 4, fields: 'title,price,currency,image,url', status: 'loading', products: [] };
  // The defaults count as changes, as Lit's constructor made them: the first render fetches, reflects `status` and
  // lists the items.
  #changed = new Set(Object.keys(this.#values));
  #updated = false;
  #run = 0;
  /** The last answer's `recommendationId`: the service's record of what it showed, sent with impressions and clicks. */
  #rid?: string;
  // Was waiting for an SDK instance when taken out of the page: it waits again once put back.
  #waitedWhenRemoved = false;
  #items: Element[] = [];
  // The shadow root's nodes, made once: a render moves them in or out and updates them.
  #stateSlot = h('slot');
  #defaultSlot = h('slot');
  #list = h('ul', { part: 'list', role: 'list' });
  /** What the built-in cards show: the products, or how many empty cards. */
  #shown: RecommendedProduct[] | number | undefined;
  /** The list made from the page's template, in the light DOM. */
  #light: HTMLUListElement | undefined;
  #seen: IntersectionObserver | undefined;
  #nearby: IntersectionObserver | undefined;
  /** Items of the current render whose impression was tracked. */
  #counted = new WeakSet<Element>();

  constructor() {
    super();
    // One listener for both layouts: composedPath() reaches into the shadow cards and the light-DOM items.
    this.addEventListener('click', (e) => this.#track('Product clicked', this.#items.findIndex((i) => e.composedPath().includes(i))));
  }

  /** Fetches the feed again (and re-renders, so impressions count again). */
  async refresh(): Promise<void> {
    const run = ++this.#run;
    const source = sources.current;
    if (!source) {
      // No SDK instance yet (or the plugin was removed): stay loading until one registers.
      waiting.add(this);
      return;
    }
    this.status = 'loading';
    this.products = [];
    const fields = this.fields.match(/[^\s,]+/g) ?? [];
    let answer: unknown;
    try {
      answer = await requestProducts(source, { id: this.feed, quantity: this.limit, fields, productId: this.productId || undefined });
    } catch {
      // invalid attributes (recommendation() validates): the error state, not an exception on the page
    }
    if (run !== this.#run) return; // attributes changed meanwhile: the newer fetch wins
    const list = (answer as { products?: unknown } | null)?.products;
    this.#rid = (answer as { recommendationId?: string } | null)?.recommendationId;
    this.products = Array.isArray(list) ? list.filter((p): p is RecommendedProduct => typeof p?.id === 'string') : [];
    this.status = !Array.isArray(list) ? 'error' : this.products.length ? 'ready' : 'empty';
  }

  override attributeChangedCallback(name: string, _old: string | null, value: string | null): void {
    // Lit's conversions: a number for feed and limit, presence for lazy, else the text (null once removed). Straight
    // into the value, not through a property a page set before the upgrade: that one is applied next, and wins.
    this.#set(name === 'product-id' ? 'productId' : name,
      name === 'lazy' ? value !== null : value !== null && (name === 'feed' || name === 'limit') ? Number(value) : value);
  }

  override connectedCallback(): void {
    // A property set before the element was defined is an own property hiding the accessor: set it again through it.
    for (const key of PROPERTIES) {
      if (!Object.hasOwn(this, key)) continue;
      const value: unknown = this[key];
      delete (this as Record<string, unknown>)[key];
      this.#set(key, value);
    }
    super.connectedCallback();
    // Back in a document after a move: watch again what disconnecting stopped watching.
    if (!this.#updated) return;
    if (this.#waitedWhenRemoved) {
      this.#waitedWhenRemoved = false;
      void this.refresh();
    }
    if (this.lazy) this.#watchNearby();
    if (this.#items.length) this.#watchImpressions();
  }

  disconnectedCallback(): void {
    this.#waitedWhenRemoved = waiting.delete(this);
    // An element taken out of the page watches nothing: its observers would keep it and its items alive.
    this.#nearby?.disconnect();
    this.#nearby = undefined;
    this.#seen?.disconnect();
    this.#seen = undefined;
  }

  /**
   * Lit's update cycle over the properties changed since the last one: willUpdate, reflection, render, updated. The
   * render reads the state and the page's template again but touches only what differs, so one that changes nothing
   * (a move in the page, a bare `requestUpdate()`) leaves the shadow DOM as it is.
   */
  protected update(): void {
    const changed = this.#changed;
    // What a fetch started here changes (status, products) belongs to this render.
    if (QUERY.some((k) => changed.has(k))) {
      if (this.lazy) this.#watchNearby();
      else void this.refresh();
    }
    this.#changed = new Set();
    this.#updated = true;
    // As Lit reflects: `null` (the page removed the attribute) leaves no attribute.
    if (changed.has('status')) {
      if (this.status == null) this.removeAttribute('status');
      else this.setAttribute('status', this.status);
    }
    this.#render();
    if (changed.has('products')) this.#listProducts();
  }

  #render(): void {
    const ready = this.status === 'ready';
    this.#stateSlot.name = this.status ?? ''; // as Lit rendered a status the page removed
    // With the page's template, its generated list is the one unslotted child the element renders.
    const template = this.#template();
    const children = template ? (ready ? [this.#stateSlot, this.#defaultSlot] : [this.#stateSlot]) : [this.#stateSlot, this.#list];
    if (this.renderRoot.lastChild !== children.at(-1)) this.renderChildren(...children);
    if (template) return;
    this.#list.inert = !ready;
    // Until the products are there (and when none come), `limit` empty cards of the final size hold the place, so
    // nothing below moves when they arrive; when fewer come than `limit`, the cells of the missing ones stay, unseen
    // (`unfilled`). `collapse` gives the box up when the element settles empty or failed, and those cells.
    // Cards are made again only when what they show changed: an <img> made again would load again.
    const shown = ready ? this.products : this.limit;
    if (shown === this.#shown) return;
    this.#shown = shown;
    const products = ready ? this.products : [];
    this.#list.replaceChildren(...products.map((p) => card(p)));
    for (let i = products.length; i < this.limit; i++) this.#list.append(card(undefined, ready));
  }

  /** After a render with new products: the page template's list, and the items whose impressions count from now. */
  #listProducts(): void {
    this.#light?.remove();
    this.#light = undefined;
    const template = this.#template();
    if (template && this.products.length) {
      this.#light = h('ul', { role: 'list' }, ...this.products.map((product) => {
        const item = h('li', {}, template.content.cloneNode(true));
        bindFields(item, product);
        return item;
      }));
      this.append(this.#light);
    }
    this.#items = [...((this.#light ?? this.renderRoot.querySelector('ul'))?.children ?? [])].slice(0, this.products.length);
    // A fresh observer per render: each item counts one impression per render.
    this.#counted = new WeakSet();
    this.#watchImpressions();
  }

  /** A lazy element fetches once it comes within 300px of the viewport. */
  #watchNearby(): void {
    this.#nearby ??= observe([this], { rootMargin: '300px' }, (e, io) => {
      if (!e.isIntersecting) return;
      io.disconnect();
      this.lazy = false; // near once is enough: later attribute changes fetch at once
      void this.refresh();
    });
  }

  /** Each item of the render counts one impression, once at least half of it is visible (a move does not count again). */
  #watchImpressions(): void {
    this.#seen?.disconnect();
    this.#seen = observe(this.#items.filter((item) => !this.#counted.has(item)), { threshold: 0.5 }, (e, io) => {
      if (e.intersectionRatio < 0.5) return;
      io.unobserve(e.target);
      this.#counted.add(e.target);
      this.#track('Product impression', this.#items.indexOf(e.target));
    });
  }

  #set(key: string, value: unknown): void {
    if (Object.is(this.#values[key], value)) return;
    this.#values[key] = value;
    this.#changed.add(key);
    this.requestUpdate();
  }

  #template(): HTMLTemplateElement | null {
    return this.querySelector(':scope>template');
  }

  #track(name: string, index: number): void {
    const product = this.products[index];
    if (!product) return;
    try {
      sources.current?.emit({ type: 'product', name, data: { productId: product.id, position: index + 1, feed: this.feed, ...(this.#rid ? { recommendationId: this.#rid } : {}) } });
    } catch {
      // tracking never breaks the page
    }
  }
}

function observe(
  targets: Element[], options: IntersectionObserverInit, each: (e: IntersectionObserverEntry, io: IntersectionObserver) => void,
): IntersectionObserver {
  const io = new IntersectionObserver((entries) => {
    for (const e of entries) each(e, io);
  }, options);
  for (const t of targets) io.observe(t);
  return io;
}
