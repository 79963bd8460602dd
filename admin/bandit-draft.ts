// An experiment's allocation in the editor's form: fixed weights or a bandit, the bandit's settings as typed, the
// checks the service makes of them (server/config/bandit-settings.ts) said before anything is sent, and what a save
// writes. The service's `invalid_config` message that names one of these fields is shown at it (`serverFieldError`).
import { BANDIT_DEFAULTS, MIN_CADENCE_MINUTES, type Allocation, type BanditSettings, type ExperienceItem } from './experience.js';

/** The bandit's part of the editor's draft: numbers as typed; `banditMetric` empty means "the first goal". */
export interface BanditDraft {
  allocation: Allocation;
  banditMetric: string;
  explorationUnits: string;
  explorationHours: string;
  cadenceMinutes: string;
  minShare: string;
}

/** The bandit's fields, as the form's errors and the service's messages name them. */
export const BANDIT_FIELDS = ['bandit.metric', 'bandit.explorationUnits', 'bandit.explorationHours', 'bandit.cadenceMinutes', 'bandit.minShare'] as const;
export type BanditField = (typeof BANDIT_FIELDS)[number];

/** The draft of `e`'s allocation, the service's defaults filled in (a new experiment: fixed weights). */
export function banditDraftOf(e?: ExperienceItem): BanditDraft {
  const b: BanditSettings = e?.bandit ?? {};
  return {
    allocation: e?.allocation === 'bandit' ? 'bandit' : 'fixed',
    banditMetric: b.metric ?? '',
    explorationUnits: String(b.explorationUnits ?? BANDIT_DEFAULTS.explorationUnits),
    explorationHours: String(b.explorationHours ?? BANDIT_DEFAULTS.explorationHours),
    cadenceMinutes: String(b.cadenceMinutes ?? BANDIT_DEFAULTS.cadenceMinutes),
    minShare: String(b.minShare ?? BANDIT_DEFAULTS.minShare),
  };
}

/** The goal a bandit decides by: the one chosen, or the first goal. */
export function decisionMetric(d: BanditDraft & { goals: readonly string[] }): string | undefined {
  return d.banditMetric || d.goals[0];
}

/**
 * What is wrong with a bandit's settings, by field, as the service would refuse them; empty for fixed weights. An
 * empty number field is the service's default. `metrics` (the project's, with their types) tell a ratio goal, which
 * cannot decide: an arm's posterior would be the ratio of two estimates.
 */
export function banditErrors(
  d: BanditDraft & { goals: readonly string[]; variations: readonly unknown[] }, metrics: readonly { name: string; type: string }[] = [],
): Partial<Record<BanditField, string>> {
  if (d.allocation !== 'bandit') return {};
  const errors: Partial<Record<BanditField, string>> = {};
  const decision = decisionMetric(d);
  if (!d.goals.length) errors['bandit.metric'] = 'A bandit needs a goal to decide by: make a metric a goal under "What it is judged by".';
  else if (d.banditMetric && !d.goals.includes(d.banditMetric)) {
    errors['bandit.metric'] = `"${d.banditMetric}" is not one of the experiment's goals (${d.goals.join(', ')}).`;
  } else if (metrics.find((m) => m.name === decision)?.type === 'ratio') {
    errors['bandit.metric'] = `"${decision}" is a ratio metric: a bandit decides by a binomial, count or sum goal.`;
  }
  const number = (text: string): number | undefined => (text.trim() ? Number(text) : undefined);
  const units = number(d.explorationUnits);
  if (units !== undefined && !(Number.isInteger(units) && units >= 0)) errors['bandit.explorationUnits'] = 'Enter a whole number of units, 0 or more.';
  const hours = number(d.explorationHours);
  if (hours !== undefined && !(hours >= 0)) errors['bandit.explorationHours'] = 'Enter a number of hours, 0 or more.';
  const cadence = number(d.cadenceMinutes);
  if (cadence !== undefined && !(cadence >= MIN_CADENCE_MINUTES)) errors['bandit.cadenceMinutes'] = `Enter at least ${MIN_CADENCE_MINUTES} minutes.`;
  const share = number(d.minShare);
  const floor = share ?? BANDIT_DEFAULTS.minShare;
  if (share !== undefined && !(share >= 0 && share < 100)) errors['bandit.minShare'] = 'Enter a percentage from 0 to under 100.';
  else if (floor * d.variations.length > 100) {
    errors['bandit.minShare'] = `${floor}% × ${d.variations.length} variations is over 100%: lower the floor or remove a variation.`;
  }
  return errors;
}

/**
 * `item` with the draft's allocation written over it: a bandit's settings at their defaults are left out (and so is
 * an empty `bandit`), fixed weights write nothing, as the service's file format does. Call with no `banditErrors`.
 */
export function writeBandit(d: BanditDraft, item: ExperienceItem): void {
  delete item.allocation;
  delete item.bandit;
  if (d.allocation !== 'bandit') return;
  item.allocation = 'bandit';
  const bandit: BanditSettings = {};
  if (d.banditMetric) bandit.metric = d.banditMetric;
  for (const field of ['explorationUnits', 'explorationHours', 'cadenceMinutes', 'minShare'] as const) {
    if (d[field].trim() && Number(d[field]) !== BANDIT_DEFAULTS[field]) bandit[field] = Number(d[field]);
  }
  if (Object.keys(bandit).length) item.bandit = bandit;
}

/** `n` equal weights that sum to exactly 100 (two decimals; the rounding's remainder goes to the first). */
export function equalWeights(n: number): string[] {
  if (n <= 0) return [];
  const each = Math.floor((100 / n) * 100) / 100;
  const first = Math.round((100 - each * (n - 1)) * 100) / 100;
  return Array.from({ length: n }, (_, i) => String(i === 0 ? first : each));
}

/**
 * The bandit field an `invalid_config` message names, with what it says of it
 * (`experience.bandit.cadenceMinutes: must be at least 5 (minutes)`, or the project check's
 * `organizations.acme.….experiences[3].goals: a bandit needs a goal…`, said at the decision metric); undefined when it
 * names none of them.
 */
export function serverFieldError(message: string): { field: BanditField; message: string } | undefined {
  const match = /(?:^|[.\]])(bandit\.(?:metric|explorationUnits|explorationHours|cadenceMinutes|minShare)|goals): (.+)$/s.exec(message);
  // A goals message is the bandit's only when it says so: an unknown goal is the metrics panel's business.
  if (!match || (match[1] === 'goals' && !match[2]!.includes('bandit'))) return undefined;
  const field = match[1] === 'goals' ? 'bandit.metric' : (match[1] as BanditField);
  return { field, message: match[2]! };
}
