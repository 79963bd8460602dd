// The editor's form as data: what the inputs hold (text, as typed), the checks made before anything is sent (JSON that
// does not parse, weights that do not sum to 100) and the item a valid form saves. Every other rule is the service's:
// its `invalid_config` message names the field.
import type { PValueCorrection } from '../wire/results-answer.js';
import { banditDraftOf, banditErrors, writeBandit, type BanditDraft } from './bandit-draft.js';
import type { Device, Experience, ExperienceItem, ExperienceKind, Variation } from './experience.js';
import { ANALYSIS_DEFAULTS, DEVICES, itemOf, kindOf } from './experience.js';
import { allFeeds } from './feed-arms.js';

export interface VariationDraft {
  /** Stable identity of the row while names are edited (the key of Lit's `repeat`). */
  id: number;
  name: string;
  weight: string;
  body: string;
}

/** Kind `experiment` also holds its allocation (`BanditDraft`: fixed weights or a bandit, and the bandit's settings). */
export interface ExperienceDraft extends BanditDraft {
  name: string;
  kind: ExperienceKind;
  variations: VariationDraft[];
  traffic: string;
  devices: Device[];
  group: string;
  /** JSON; empty: no targeting condition. */
  condition: string;
  /** Content for everyone (kind `content`), JSON. */
  body: string;
  /** Feed id (kind `feed`), as the select holds it. */
  feed: string;
  limit: string;
  /** Kind `experiment`: how its results are computed (see `ExperienceItem`); numbers as typed. */
  alpha: string;
  sequential: boolean;
  sequentialTuning: string;
  correction: PValueCorrection;
  /** Kind `experiment`: the metrics it is judged by, by name (the first goal is the primary one). */
  goals: string[];
  secondary: string[];
  guardrails: string[];
  /** A sample-ratio mismatch stops it (not only warns). */
  stopOnSrm: boolean;
  /** Each variation serves a feed (`{"feed": id}`, picked from the project's feeds) rather than a JSON body. */
  feedArms: boolean;
}

/** Field → what is wrong with it: `condition`, `body`, `weights`, `variations.0.body`… */
export type DraftErrors = Partial<Record<string, string>>;

let nextId = 0;

export function variationDraft(name = '', weight = '', body: Record<string, unknown> = {}): VariationDraft {
  return { id: ++nextId, name, weight, body: json(body) };
}

const json = (value: unknown): string => JSON.stringify(value, null, 2);

/**
 * The form of `e`, or of a new experiment (two variations at 50/50) when there is none. A new experiment has
 * sequential intervals checked: the results page is live and people look at it every day, which fixed-horizon
 * intervals do not allow (the service's default stays off; an existing experiment keeps what it has).
 */
export function draftOf(e?: Experience): ExperienceDraft {
  if (!e) {
    return {
      name: '', kind: 'experiment', variations: [variationDraft('control', '50'), variationDraft('treatment', '50')],
      traffic: '100', devices: [...DEVICES], group: '', condition: '', body: '{}', feed: '', limit: '',
      alpha: String(ANALYSIS_DEFAULTS.alpha), sequential: true, sequentialTuning: String(ANALYSIS_DEFAULTS.sequentialTuning),
      correction: ANALYSIS_DEFAULTS.correction, goals: [], secondary: [], guardrails: [], stopOnSrm: false,
      ...banditDraftOf(), feedArms: false,
    };
  }
  const variations = (e.variations ?? []).map((v) => variationDraft(v.name, String(v.weight), v.body));
  return {
    name: e.name,
    kind: kindOf(e),
    variations,
    traffic: String(e.traffic ?? 100),
    devices: e.devices ? [...e.devices] : [...DEVICES],
    group: e.group ?? '',
    condition: e.condition ? json(e.condition) : '',
    body: json(e.body ?? {}),
    feed: e.feed === undefined ? '' : String(e.feed),
    limit: e.limit === undefined ? '' : String(e.limit),
    alpha: String(e.alpha ?? ANALYSIS_DEFAULTS.alpha),
    sequential: e.sequential === true,
    sequentialTuning: String(e.sequentialTuning ?? ANALYSIS_DEFAULTS.sequentialTuning),
    correction: e.correction ?? ANALYSIS_DEFAULTS.correction,
    goals: [...(e.goals ?? [])],
    secondary: [...(e.secondary ?? [])],
    guardrails: [...(e.guardrails ?? [])],
    stopOnSrm: e.stopOnSrm === true,
    ...banditDraftOf(e),
    feedArms: allFeeds(variations),
  };
}

/** The sum of the weights as typed (a weight that is not a number counts 0). */
export function weightSum(d: ExperienceDraft): number {
  return d.variations.reduce((sum, v) => sum + (Number(v.weight) || 0), 0);
}

/** The service tolerates float rounding (33.33 + 33.33 + 33.34); so does the form. */
export function weightsValid(d: ExperienceDraft): boolean {
  return Math.abs(weightSum(d) - 100) <= 1e-6;
}

/** What must be fixed before the form can be sent (`metrics`: the project's, with their types); empty when nothing. */
export function draftErrors(d: ExperienceDraft, metrics: readonly { name: string; type: string }[] = []): DraftErrors {
  const errors: DraftErrors = {};
  const check = (field: string, text: string, optional: boolean): void => {
    const parsed = parseObject(text, optional);
    if (typeof parsed === 'string') errors[field] = parsed;
  };
  check('condition', d.condition, true);
  if (d.kind === 'experiment') {
    d.variations.forEach((v, i) => check(`variations.${i}.body`, v.body, false));
    if (!d.variations.length) errors.weights = 'Add at least one variation.';
    else if (!weightsValid(d)) errors.weights = `The weights sum to ${formatSum(weightSum(d))}%; they must sum to 100%.`;
    Object.assign(errors, banditErrors(d, metrics));
  } else if (d.kind === 'content') check('body', d.body, false);
  return errors;
}

/** A sum as people read it: 100, 99.5, 33.33 (float noise rounded away). */
export function formatSum(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/**
 * The item a form saves: `base` (the experience as loaded, when editing) with the form's fields written over it, so
 * what the form does not show (stickiness, namespace, seed, status…) is kept. A setting at the service's default is
 * left out, as the service's file format does. Call only when `draftErrors` is empty.
 */
export function draftItem(d: ExperienceDraft, base?: Experience): ExperienceItem {
  const item: ExperienceItem = base ? itemOf(base) : { name: d.name.trim(), status: 'draft' };
  for (const field of [
    'variations', 'body', 'feed', 'limit', 'winner', 'group', 'devices', 'traffic', 'condition', 'alpha', 'sequential', 'sequentialTuning', 'correction',
    'goals', 'secondary', 'guardrails', 'stopOnSrm', 'allocation', 'bandit',
  ]) delete item[field];
  if (d.kind === 'experiment') {
    item.variations = d.variations.map((v): Variation => ({
      name: v.name.trim(), weight: Number(v.weight), body: parseObject(v.body, false) as Record<string, unknown>,
    }));
    // A shipped winner stays only while it still names a variation and the experiment stays stopped.
    const winner = base?.winner;
    if (winner && item.status === 'stopped' && item.variations.some((v) => v.name === winner)) item.winner = winner;
    // The analysis settings belong to experiments only (the service refuses them elsewhere). The tuning is kept
    // while sequential is off, so turning it on again finds it.
    if (d.alpha.trim() && Number(d.alpha) !== ANALYSIS_DEFAULTS.alpha) item.alpha = Number(d.alpha);
    if (d.sequential) item.sequential = true;
    if (d.sequentialTuning.trim() && Number(d.sequentialTuning) !== ANALYSIS_DEFAULTS.sequentialTuning) item.sequentialTuning = Number(d.sequentialTuning);
    if (d.correction !== ANALYSIS_DEFAULTS.correction) item.correction = d.correction;
    for (const field of ['goals', 'secondary', 'guardrails'] as const) if (d[field].length) item[field] = [...d[field]];
    if (d.stopOnSrm) item.stopOnSrm = true;
    writeBandit(d, item);
  } else if (d.kind === 'content') item.body = parseObject(d.body, false) as Record<string, unknown>;
  else {
    item.feed = Number(d.feed);
    if (d.limit.trim()) item.limit = Number(d.limit);
  }
  if (d.group.trim()) item.group = d.group.trim();
  // Every device checked is the default (no restriction); the service's file format leaves it out.
  if (!DEVICES.every((device) => d.devices.includes(device))) item.devices = DEVICES.filter((device) => d.devices.includes(device));
  if (d.traffic.trim() && Number(d.traffic) !== 100) item.traffic = Number(d.traffic);
  const condition = parseObject(d.condition, true);
  if (condition && typeof condition === 'object') item.condition = condition;
  return item;
}

/**
 * JSON text that must be an object: the object, `undefined` for empty text when `optional`, or what is wrong as a
 * sentence.
 */
export function parseObject(text: string, optional: boolean): Record<string, unknown> | undefined | string {
  if (!text.trim()) return optional ? undefined : 'Enter a JSON object, e.g. {"title": "Hello"}.';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `Not valid JSON: ${(error as Error).message}`;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : 'Enter a JSON object (in braces), not a list or a single value.';
}

/** The devices hint under the checkboxes. */
export function devicesHint(devices: readonly string[]): string {
  if (!devices.length) return 'No device checked: nobody will get it.';
  return devices.length === DEVICES.length ? 'Every device.' : `Only ${devices.join(', ')}.`;
}

/** Why Save is off, next to it (the button's description), as the fields' own messages may be out of view. */
export function blockedReason(errors: Record<string, string | undefined>): string {
  const fields = Object.keys(errors);
  const bandit = fields.find((field) => field.startsWith('bandit.'));
  const weights = fields.includes('weights');
  const json = fields.some((field) => field !== 'weights' && !field.startsWith('bandit.'));
  const needs = [
    ...(weights ? ['the weights sum to 100%'] : []), ...(json ? ['the JSON above parses'] : []), ...(bandit ? ['the bandit\'s settings are fixed'] : []),
  ];
  if (needs.length > 1) return `Save is off until ${needs.slice(0, -1).join(', ')} and ${needs.at(-1)}.`;
  if (weights) return `Save is off: ${errors.weights}`;
  return bandit ? `Save is off: ${errors[bandit]}` : 'Save is off until the JSON above parses.';
}
