import type { RecommendationParams } from '../../src/index.js';

/** What the batcher asks through: an SDK instance's `recommendation()` and, to ask for several feeds at once, its batch. */
export interface FeedAsker {
  recommendation(params: RecommendationParams): Promise<unknown>;
  recommendations?(list: RecommendationParams[], excludeProducts?: string[]): Promise<unknown[] | null>;
}

/** The most ids a request may say the page shows (the service refuses more). */
const MAX_EXCLUDED = 200;

/** Per instance, the feeds gathered for its next request and that request's answers. */
const pending = new Map<FeedAsker, { list: RecommendationParams[]; answers: Promise<unknown[] | null> }>();
/** Per instance, the answers of the last request sent: the next one waits for them, to know what they show. */
const last = new WeakMap<FeedAsker, Promise<unknown>>();

const nextTask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** The products the page's widgets show now (one asking again shows none meanwhile). */
function shownOnPage(): string[] | undefined {
  const ids = new Set<string>();
  for (const el of document.querySelectorAll('svc-recommendations')) for (const p of el.products) ids.add(p.id);
  return ids.size ? [...ids].slice(0, MAX_EXCLUDED) : undefined;
}

/**
 * A feed's answer for one widget, never with a product another widget of the page shows (unless the feed keeps
 * duplicates, `dedupe: false`). Widgets connect one by one; those asking before the next task are gathered into one
 * request (`POST …/feeds/data`, whose answers never repeat a product), which says what the page's other widgets show
 * already. A request waits for the answers of the one before it, so a widget added while they travel leaves out
 * their products too. One widget alone asks the feed endpoint, as `svc.recommendation()` does.
 */
export function requestProducts(asker: FeedAsker, params: RecommendationParams): Promise<unknown> {
  // A feed or limit that is not a number: recommendation() refuses it (the widget's error state), alone.
  if (!asker.recommendations || !Number.isFinite(params.id) || !Number.isFinite(params.quantity)) {
    return asker.recommendation({ ...params, excludeProducts: shownOnPage() });
  }
  let batch = pending.get(asker);
  if (!batch) {
    const list: RecommendationParams[] = [];
    const answers = (last.get(asker) ?? Promise.resolve()).then(nextTask).then(() => {
      pending.delete(asker);
      const excludeProducts = shownOnPage();
      return list.length === 1
        ? asker.recommendation({ ...list[0]!, excludeProducts }).then((answer) => [answer])
        : asker.recommendations!(list, excludeProducts);
    }).catch(() => null); // the SDK's requests answer null on failure; this guards a replaced implementation
    batch = { list, answers };
    pending.set(asker, batch);
    last.set(asker, answers);
  }
  const i = batch.list.push(params) - 1;
  return batch.answers.then((answers) => answers?.[i] ?? null);
}
