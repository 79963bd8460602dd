// Strategies against each other: an experiment whose variations are feeds. Each arm's body is `{"feed": <id>}`, which
// the Choose API answers as it is and the page turns into that feed's list; the editor offers the project's feeds in
// place of the JSON. A recommendations experiment is judged, by default, by what the recommendations holdout measures.
import type { Feed } from './experience.js';
import type { VariationDraft } from './experience-form.js';

/**
 * The metrics the service adds to a project whose config sets `recommendations.holdout`
 * (server/config/recommendations-holdout.ts): revenue per visitor first, the primary goal.
 */
export const HOLDOUT_METRICS = ['recommendations-revenue', 'recommendations-orders', 'recommendations-order-value'] as const;

/** The feed id of a variation body that is exactly `{"feed": <id>}` (as JSON text), else undefined. */
export function feedOfBody(body: string): number | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const feed = (value as { feed?: unknown }).feed;
  return keys.length === 1 && typeof feed === 'number' && Number.isInteger(feed) && feed > 0 ? feed : undefined;
}

/** Whether every variation of a (non-empty) list is a feed: the editor then shows feed selects. */
export function allFeeds(variations: readonly Pick<VariationDraft, 'body'>[]): boolean {
  return variations.length > 0 && variations.every((v) => feedOfBody(v.body) !== undefined);
}

/** An arm's name from its feed: the strategy (`popular`), or with the id when two feeds share it (`popular-3`). */
export function armName(feed: Feed, feeds: readonly Feed[]): string {
  return feeds.filter((f) => f.strategy === feed.strategy).length > 1 ? `${feed.strategy}-${feed.id}` : feed.strategy;
}

export const feedBody = (id: number): string => JSON.stringify({ feed: id }, null, 2);

/**
 * The variations as feeds: each row that is not a feed yet takes the next feed no row uses (the first feed when all
 * are used), and its name when it had none or the new experiment's `control`/`treatment`.
 */
export function asFeedArms(variations: readonly VariationDraft[], feeds: readonly Feed[]): VariationDraft[] {
  if (!feeds.length) return [...variations];
  const used = new Set(variations.map((v) => feedOfBody(v.body)).filter((id) => id !== undefined));
  return variations.map((v) => {
    if (feedOfBody(v.body) !== undefined) return v;
    const feed = feeds.find((f) => !used.has(f.id)) ?? feeds[0]!;
    used.add(feed.id);
    const named = v.name.trim() && !['control', 'treatment'].includes(v.name.trim());
    return { ...v, body: feedBody(feed.id), name: named ? v.name : armName(feed, feeds) };
  });
}

/** A new arm's name and body: the first feed no variation uses yet (or the first feed), named after it. */
export function nextFeedArm(variations: readonly VariationDraft[], feeds: readonly Feed[]): { name: string; body: Record<string, unknown> } {
  const used = new Set(variations.map((v) => feedOfBody(v.body)));
  const feed = feeds.find((f) => !used.has(f.id)) ?? feeds[0];
  return feed ? { name: armName(feed, feeds), body: { feed: feed.id } } : { name: '', body: {} };
}

/**
 * The arm after its feed select changed to `id`: the body, and the name too while it is still the old feed's name
 * (a name the person typed stays).
 */
export function withFeed(v: VariationDraft, id: number, feeds: readonly Feed[]): VariationDraft {
  const before = feeds.find((f) => f.id === feedOfBody(v.body));
  const after = feeds.find((f) => f.id === id);
  const renamed = after && (!v.name.trim() || (before && v.name === armName(before, feeds)));
  return { ...v, body: feedBody(id), ...(renamed ? { name: armName(after, feeds) } : {}) };
}

/** The holdout's metrics the project has, in their order (none without a holdout): a recommendations experiment's goals. */
export function holdoutGoals(metrics: readonly { name: string }[]): string[] {
  const names = new Set(metrics.map((m) => m.name));
  return HOLDOUT_METRICS.filter((name) => names.has(name));
}
