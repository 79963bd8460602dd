// A recommendation feed as the management API answers it, and the form's draft of one: the merchandising settings
// (docs/merchandising-rules.md) as rows of fields a person edits, and back. What the form cannot show (a condition it
// does not know) is kept as loaded.
import type { FeedAnswerItem, FeedItem as ApiFeedItem, FeedRule, FieldCondition } from '../wire/api/item-schema.js';
import { FEED_STRATEGIES } from '../wire/feed-preview.js';

export type Condition = FieldCondition;
export type { FeedRule };
export type FeedFallback = string | { feed: number };

/**
 * A feed as the form sends it: the API's item, with the strategy and fallbacks as the form chose them (the service
 * checks them, and its message names the field).
 */
export type FeedItem = Omit<ApiFeedItem, 'strategy' | 'fallback'> & { strategy: string; fallback?: FeedFallback[] };

/** A feed as the API answers it: the item, its version and where it comes from. */
export type FeedRecord = FeedAnswerItem;

export const STRATEGIES: readonly string[] = FEED_STRATEGIES;
/** What a fallback may name besides another feed. */
export const FALLBACK_SOURCES: readonly string[] = [...FEED_STRATEGIES, 'popular-in-category'];
export const OPERATORS = ['eq', 'in', 'gte', 'lte', 'same'] as const;
export type Operator = (typeof OPERATORS)[number];
export const RULE_KINDS = ['pin', 'filter', 'boost', 'bury'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

/** One condition of a rule: a field, an operator and its value as typed; `relative`: `gte`/`lte` × the page's field. */
export interface ConditionDraft {
  key: number;
  field: string;
  op: Operator;
  value: string;
  relative: boolean;
}

export interface RuleDraft {
  key: number;
  kind: RuleKind;
  pin: string;
  position: string;
  factor: string;
  conditions: ConditionDraft[];
}

export interface FeedDraft {
  id: string;
  strategy: string;
  limit: string;
  attributionHours: string;
  dedupe: boolean;
  rules: RuleDraft[];
  inCart: boolean;
  purchased: boolean;
  purchasedDays: string;
  viewed: boolean;
  /** Excluded product ids, comma-separated. */
  ids: string;
  /** Fallback sources in order: a strategy, `popular-in-category` or `feed:3`. */
  fallback: string[];
}

let keys = 0;
export const nextKey = (): number => ++keys;

export function conditionDraft(field = 'category', op: Operator = 'same', value = '', relative = false): ConditionDraft {
  return { key: nextKey(), field, op, value, relative };
}

export function ruleDraft(kind: RuleKind): RuleDraft {
  return { key: nextKey(), kind, pin: '', position: '1', factor: '2', conditions: kind === 'pin' ? [] : [conditionDraft()] };
}

/** The rows of a rule's conditions: a plain value is `eq`, an object one row per operator. */
function conditionRows(conditions: Record<string, Condition>): ConditionDraft[] {
  return Object.entries(conditions).flatMap(([field, condition]) => {
    if (typeof condition !== 'object') return [conditionDraft(field, 'eq', String(condition))];
    return Object.entries(condition).map(([op, value]) => {
      if (op === 'same') return conditionDraft(field, 'same');
      if (op === 'in') return conditionDraft(field, 'in', (value as unknown[]).join(', '));
      const relative = typeof value === 'object' && value !== null;
      return conditionDraft(field, op as Operator, String(relative ? (value as { same: number }).same : value), relative);
    });
  });
}

export function feedDraftOf(feed?: FeedItem): FeedDraft {
  const exclude = feed?.exclude ?? [];
  return {
    id: feed ? String(feed.id) : '',
    strategy: feed?.strategy ?? 'bought-together',
    limit: feed?.limit === undefined ? '' : String(feed.limit),
    attributionHours: feed?.attributionHours === undefined ? '' : String(feed.attributionHours),
    dedupe: feed?.dedupe ?? true,
    rules: (feed?.rules ?? []).map((rule) => {
      if ('pin' in rule) return { ...ruleDraft('pin'), pin: rule.pin, position: String(rule.position) };
      const kind: RuleKind = 'filter' in rule ? 'filter' : 'boost' in rule ? 'boost' : 'bury';
      const when = 'filter' in rule ? rule.filter : 'boost' in rule ? rule.boost : rule.bury;
      const factor = 'factor' in rule && rule.factor !== undefined ? String(rule.factor) : '2';
      return { ...ruleDraft(kind), factor, conditions: conditionRows(when) };
    }),
    inCart: exclude.includes('in-cart'),
    purchased: exclude.includes('purchased'),
    purchasedDays: feed?.purchasedDays === undefined ? '' : String(feed.purchasedDays),
    viewed: exclude.includes('viewed'),
    ids: exclude.flatMap((e) => (typeof e === 'object' ? e.ids : ['in-cart', 'purchased', 'viewed'].includes(e) ? [] : [e])).join(', '),
    fallback: (feed?.fallback ?? ['popular']).map((f) => (typeof f === 'object' ? `feed:${f.feed}` : f)),
  };
}

const NUMBER_FIELDS = ['price', 'inventory'];
const list = (text: string): string[] => text.split(',').map((s) => s.trim()).filter(Boolean);
/** A number as typed, or the text itself (the service names the field that must be a number). */
const numberOf = (text: string): number | string => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text);

/** A typed value as the field takes it: numbers for price and inventory, true/false for available, else text. */
function valueOf(field: string, text: string): Condition {
  if (NUMBER_FIELDS.includes(field)) return numberOf(text);
  if (field === 'available') return text.trim() === 'true' ? true : text.trim() === 'false' ? false : text;
  return text;
}

function conditionsOf(rows: readonly ConditionDraft[]): Record<string, Condition> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const row of rows) {
    const field = row.field.trim();
    const ops = (out[field] ??= {});
    if (row.op === 'same') ops.same = true;
    else if (row.op === 'in') ops.in = list(row.value).map((v) => valueOf(field, v));
    else if (row.op === 'eq') ops.eq = valueOf(field, row.value);
    else ops[row.op] = row.relative ? { same: numberOf(row.value) } : numberOf(row.value);
  }
  // A lone `eq` is written as the plain value, as the docs write it.
  return Object.fromEntries(Object.entries(out).map(([field, ops]) => {
    const names = Object.keys(ops);
    return [field, names.length === 1 && names[0] === 'eq' ? ops.eq as Condition : ops];
  }));
}

function ruleOf(rule: RuleDraft): FeedRule {
  if (rule.kind === 'pin') return { pin: rule.pin.trim(), position: numberOf(rule.position) as number };
  const when = conditionsOf(rule.conditions);
  if (rule.kind === 'filter') return { filter: when };
  const factor = numberOf(rule.factor) as number;
  return rule.kind === 'boost' ? { boost: when, factor } : { bury: when, factor };
}

/** The feed the draft describes; an empty number field is left out (the service's default). */
export function feedItemOf(d: FeedDraft): FeedItem {
  const item: FeedItem = { id: numberOf(d.id) as number, strategy: d.strategy, dedupe: d.dedupe };
  if (d.limit.trim()) item.limit = numberOf(d.limit) as number;
  if (d.attributionHours.trim()) item.attributionHours = numberOf(d.attributionHours) as number;
  if (d.rules.length) item.rules = d.rules.map(ruleOf);
  const exclude: (string | { ids: string[] })[] = [
    ...(d.inCart ? ['in-cart'] : []), ...(d.purchased ? ['purchased'] : []), ...(d.viewed ? ['viewed'] : []),
  ];
  const ids = list(d.ids);
  if (ids.length) exclude.push({ ids });
  if (exclude.length) item.exclude = exclude;
  if (d.purchased && d.purchasedDays.trim()) item.purchasedDays = numberOf(d.purchasedDays) as number;
  // `['popular']` is the default: left out, so a feed without rules keeps the service's plain path.
  if (d.fallback.join() !== 'popular') item.fallback = d.fallback.map((f) => (f.startsWith('feed:') ? { feed: Number(f.slice(5)) } : f));
  return item;
}

/**
 * Where a service message about the feed belongs in the form: `feed.rules[2].filter.price: …` → `rules.2`,
 * `feed.limit: …` → `limit`; undefined when it names no part of the form.
 */
export function errorPlace(message: string): string | undefined {
  const path = message.split(':')[0] ?? '';
  if (!path.startsWith('feed.')) return undefined;
  const rest = path.slice('feed.'.length);
  const rule = /^rules\[(\d+)\]/.exec(rest);
  if (rule) return `rules.${rule[1]}`;
  const head = /^[a-zA-Z]+/.exec(rest)?.[0];
  return head === 'purchasedDays' ? 'exclude' : head;
}
