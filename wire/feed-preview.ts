// What a feed's preview (`POST /v1/{org}/projects/{project}/feeds/preview`) takes and answers, and the strategies a feed
// may use: the contract the service builds (server/recommendations/feed-preview.ts) and the console reads, in one place
// (docs/merchandising-rules.md).

/** The strategies the service knows, in the order the console offers them. */
export const FEED_STRATEGIES = ['popular', 'viewed-together', 'bought-together', 'recently-viewed', 'personalized'] as const;
export type FeedStrategy = (typeof FEED_STRATEGIES)[number];

/** Why the rules left a product out of the feed's list. */
export type RemovalReason =
  | 'page-product' | 'excluded-id' | 'in-cart' | 'purchased' | 'viewed'
  | 'filtered' | 'unavailable' | 'not-in-catalog' | 'cut';

/** A product the rules left out: why, the pin's position (a skipped pin), the filter rule and its field (filtered). */
export interface Removal {
  id: string;
  reason: RemovalReason;
  pin?: number;
  rule?: number;
  field?: string;
}

/** A product of a preview's list. */
export interface PreviewProduct {
  id: string;
  title?: string;
}

export interface FeedPreviewAnswer {
  /** Each strategy's own list for this product and profile, without rules or fallbacks. */
  strategies: { strategy: FeedStrategy; products: PreviewProduct[] }[];
  /** What the feed answers, rules applied, and what its rules left out. */
  feed: { products: PreviewProduct[]; removed: Removal[] };
}

const REASONS: Record<RemovalReason, string> = {
  'page-product': 'excluded: the product the page is about',
  'excluded-id': 'excluded: its id is in the feed\'s exclude list',
  'in-cart': 'excluded: in the cart',
  purchased: 'excluded: purchased',
  viewed: 'excluded: viewed',
  filtered: 'filtered',
  unavailable: 'unavailable',
  'not-in-catalog': 'not in the catalog',
  cut: 'cut: pins, boosts or buries pushed it past the limit',
};

/** A removal in words, e.g. `filtered by rules[1] (price)` or `pin at 1 skipped: unavailable`. */
export function removalText(removal: Removal): string {
  const why = removal.reason === 'filtered' && removal.rule !== undefined
    ? `filtered by rules[${removal.rule}]${removal.field !== undefined ? ` (${removal.field})` : ''}`
    : REASONS[removal.reason];
  return removal.pin !== undefined ? `pin at ${removal.pin} skipped: ${why}` : why;
}

/** A product as the catalog search (`GET …/catalog?q=`) lists it, for the preview's product picker. */
export interface FoundProduct {
  id: string;
  title?: string;
  category?: string;
  price?: number;
  available: boolean;
}
