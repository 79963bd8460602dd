// The experience editor's panel of an experiment's allocation: fixed weights, or a bandit with its decision metric,
// exploration, cadence and floor. Each field says what the service would refuse before Save, and the service's own
// message when a save was refused naming it.
import { html, nothing, type TemplateResult } from 'lit';
import { decisionMetric, type BanditField } from './bandit-draft.js';
import { BANDIT_DEFAULTS, MIN_CADENCE_MINUTES, type Allocation } from './experience.js';
import type { DraftErrors, ExperienceDraft } from './experience-form.js';
import type { MetricChoice } from './experience-metrics-panel.js';

const ALLOCATIONS: { allocation: Allocation; label: string; hint: string }[] = [
  { allocation: 'fixed', label: 'Fixed weights', hint: 'you set each variation\'s share' },
  { allocation: 'bandit', label: 'Bandit', hint: 'the service moves traffic to what works' },
];

interface NumberField {
  field: BanditField;
  key: 'explorationUnits' | 'explorationHours' | 'cadenceMinutes' | 'minShare';
  label: string;
  attrs: { min: string; max?: string; step: string };
  hint: (d: ExperienceDraft) => string;
}

const NUMBERS: NumberField[] = [
  {
    field: 'bandit.explorationUnits', key: 'explorationUnits', label: 'Exploration (units)', attrs: { min: '0', step: '1' },
    hint: () => `Equal weights until at least this many people are in it; default ${BANDIT_DEFAULTS.explorationUnits}.`,
  },
  {
    field: 'bandit.explorationHours', key: 'explorationHours', label: 'Exploration (hours)', attrs: { min: '0', step: 'any' },
    hint: () => `…and at least this many hours after the start; default ${BANDIT_DEFAULTS.explorationHours}.`,
  },
  {
    field: 'bandit.cadenceMinutes', key: 'cadenceMinutes', label: 'Cadence (minutes)', attrs: { min: String(MIN_CADENCE_MINUTES), step: 'any' },
    hint: () => `How often the weights are drawn again; at least ${MIN_CADENCE_MINUTES}, default ${BANDIT_DEFAULTS.cadenceMinutes}.`,
  },
  {
    field: 'bandit.minShare', key: 'minShare', label: 'Floor per arm (%)', attrs: { min: '0', max: '99.99', step: 'any' },
    hint: (d) => {
      const floor = d.minShare.trim() ? Number(d.minShare) : BANDIT_DEFAULTS.minShare;
      const reserved = Number.isFinite(floor) ? ` Here ${Math.round(floor * d.variations.length * 100) / 100}% of the traffic is kept spread over the ${d.variations.length} arms.` : '';
      return `Every arm keeps at least this share, so the bandit can still learn it was wrong; default ${BANDIT_DEFAULTS.minShare}.${reserved}`;
    },
  },
];

/**
 * The panel. `errors` holds the form's own checks (`bandit.*`); `server` what the service said of one field when it
 * refused the last save (shown while the form has nothing to say of that field).
 */
export function banditFields(
  d: ExperienceDraft, errors: DraftErrors, server: { field: BanditField; message: string } | undefined, metrics: readonly MetricChoice[],
  set: (change: Partial<ExperienceDraft>) => void, allocate: (allocation: Allocation) => void,
): TemplateResult {
  const bandit = d.allocation === 'bandit';
  const errorOf = (field: BanditField): string | undefined => errors[field] ?? (server?.field === field ? server.message : undefined);
  return html`<section class="panel" aria-labelledby="allocation-title">
    <h2 id="allocation-title">Allocation</h2>
    <fieldset class="allocations">
      <legend class="sr-only">How traffic is split between the variations</legend>
      ${ALLOCATIONS.map(({ allocation, label, hint }) => html`<label class="choice">
        <input type="radio" name="allocation" .value=${allocation} .checked=${d.allocation === allocation} @change=${() => allocate(allocation)}>
        <span>${label} <span class="muted">(${hint})</span></span></label>`)}
    </fieldset>
    ${bandit
      ? html`<p class="hint">Thompson sampling on the decision metric: after an exploration with equal weights, the weights are drawn
          again on the cadence from each arm's chance of being best. People already in the experiment keep their variation, and a
          reweight never starts a phase; the results are analysed period by period between reweights.</p>
        <div class="grid">
          ${metricField(d, errorOf('bandit.metric'), new Set(metrics.filter((m) => m.type === 'ratio').map((m) => m.name)), set)}
          ${NUMBERS.map((n) => numberField(d, n, errorOf(n.field), set))}
        </div>`
      : html`<p class="hint">Each variation gets the share you set, until you change it (which starts a new phase).</p>`}
  </section>`;
}

/** Ids of a field's hint and error, for `aria-describedby`. */
const describedBy = (id: string, error: string | undefined): string => (error ? `${id}-hint ${id}-error` : `${id}-hint`);

function metricField(d: ExperienceDraft, error: string | undefined, ratios: ReadonlySet<string>, set: (change: Partial<ExperienceDraft>) => void): TemplateResult {
  const chosen = decisionMetric(d);
  const stale = d.banditMetric && !d.goals.includes(d.banditMetric);
  return html`<div class="field decision">
    <label for="bandit-metric">Decision metric</label>
    <select id="bandit-metric" ?disabled=${!d.goals.length && !stale} aria-invalid=${error ? 'true' : nothing} aria-describedby=${describedBy('bandit-metric', error)}
      @change=${(e: Event) => {
        const value = (e.target as HTMLSelectElement).value;
        // The primary goal is the default: choosing it follows the primary goal, whichever it becomes.
        set({ banditMetric: value === d.goals[0] ? '' : value });
      }}>
      ${!d.goals.length && !stale ? html`<option value="" selected>No goal yet</option>` : nothing}
      ${stale ? html`<option value=${d.banditMetric} selected>${d.banditMetric} (not a goal)</option>` : nothing}
      ${d.goals.map((name) => html`<option value=${name} ?selected=${!stale && name === chosen} ?disabled=${ratios.has(name) && name !== chosen}>
        ${name}${ratios.has(name) ? ' (a ratio: cannot decide)' : ''}</option>`)}
    </select>
    <p id="bandit-metric-hint" class="hint">The goal the weights follow; default: the primary goal${d.goals.length ? ` (${d.goals[0]})` : ''}.
      Goals are chosen under "What it is judged by".</p>
    ${error ? html`<p id="bandit-metric-error" class="field-error">${error}</p>` : nothing}
  </div>`;
}

function numberField(d: ExperienceDraft, n: NumberField, error: string | undefined, set: (change: Partial<ExperienceDraft>) => void): TemplateResult {
  const id = `bandit-${n.key}`;
  return html`<div class="field">
    <label for=${id}>${n.label}</label>
    <input id=${id} type="number" min=${n.attrs.min} max=${n.attrs.max ?? nothing} step=${n.attrs.step} inputmode="decimal"
      aria-invalid=${error ? 'true' : nothing} aria-describedby=${describedBy(id, error)}
      .value=${d[n.key]} @input=${(e: Event) => set({ [n.key]: (e.target as HTMLInputElement).value })}>
    <p id=${`${id}-hint`} class="hint">${n.hint(d)}</p>
    ${error ? html`<p id=${`${id}-error`} class="field-error">${error}</p>` : nothing}
  </div>`;
}
