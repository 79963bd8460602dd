import type { FeedConfig } from './config-types.js';

// What a feed's `fallback` list means, read where the config's shape is known: the sources that fill a feed's list
// after its strategy, in order.

/** A source that fills a feed's list after its strategy: a strategy, or popular in the page product's category. */
export type FillSource = FeedConfig['strategy'] | 'popular-in-category';

/**
 * A feed's fallbacks as the sources they read, in order (absent: `popular`; `[]`: none): a fallback feed lends its
 * strategy, then its own fallbacks; each source once, and never the feed's own strategy again. The config refuses
 * cycles; a feed met twice is read once all the same.
 * @example fillSources({ id: 1, strategy: 'bought-together', fallback: ['popular-in-category', 'popular'] }, feeds)
 */
export function fillSources(feed: FeedConfig, feeds: readonly FeedConfig[]): FillSource[] {
  const out: FillSource[] = [];
  const seen = new Set<number>([feed.id]);
  const add = (source: FillSource): void => {
    if (source !== feed.strategy && !out.includes(source)) out.push(source);
  };
  const expand = (list: FeedConfig['fallback']): void => {
    for (const item of list ?? ['popular']) {
      if (typeof item === 'string') {
        add(item);
        continue;
      }
      const other = feeds.find((f) => f.id === item.feed);
      if (other === undefined || seen.has(other.id)) continue;
      seen.add(other.id);
      add(other.strategy);
      expand(other.fallback);
    }
  };
  expand(feed.fallback);
  return out;
}

/** Whether a feed sets rules, exclusions or fallbacks: a feed without any is read as it always was. */
export function hasMerchandising(feed: FeedConfig): boolean {
  return feed.rules !== undefined || feed.exclude !== undefined || feed.fallback !== undefined;
}
