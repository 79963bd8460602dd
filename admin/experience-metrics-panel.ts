// The experience editor's panel of what an experiment is judged by: each project metric's part (goal, secondary,
// guardrail or none), which goal is the primary one, and whether a sample-ratio mismatch stops it.
import { html, nothing, type TemplateResult } from 'lit';
import type { ExperienceDraft } from './experience-form.js';

/** A project metric as the panel lists it. */
export interface MetricChoice {
  name: string;
  type: string;
  inverse?: boolean;
}

type Role = 'goal' | 'secondary' | 'guardrail' | '';

const ROLES: { role: Role; label: string }[] = [
  { role: '', label: 'Not used' },
  { role: 'goal', label: 'Goal' },
  { role: 'secondary', label: 'Secondary' },
  { role: 'guardrail', label: 'Guardrail' },
];

const FIELDS = { goal: 'goals', secondary: 'secondary', guardrail: 'guardrails' } as const;

function roleOf(d: ExperienceDraft, name: string): Role {
  if (d.goals.includes(name)) return 'goal';
  if (d.secondary.includes(name)) return 'secondary';
  return d.guardrails.includes(name) ? 'guardrail' : '';
}

/** The draft's lists with `name` moved to `role` (a new goal goes last: the primary one stays first). */
export function withRole(d: ExperienceDraft, name: string, role: Role): Pick<ExperienceDraft, 'goals' | 'secondary' | 'guardrails'> {
  const lists = {
    goals: d.goals.filter((n) => n !== name), secondary: d.secondary.filter((n) => n !== name), guardrails: d.guardrails.filter((n) => n !== name),
  };
  if (role !== '') lists[FIELDS[role]].push(name);
  return lists;
}

/** The goals with `name` first: the primary goal. */
export function withPrimary(d: ExperienceDraft, name: string): Pick<ExperienceDraft, 'goals'> {
  return { goals: [name, ...d.goals.filter((n) => n !== name)] };
}

/**
 * The panel: one row per project metric with its part, the primary goal among the goals, and the sample-ratio switch.
 * Metrics the experiment names but the project no longer has are listed too, so that they can be taken off.
 */
export function metricsFields(d: ExperienceDraft, metrics: readonly MetricChoice[], set: (change: Partial<ExperienceDraft>) => void): TemplateResult {
  const known = new Set(metrics.map((m) => m.name));
  const gone = [...d.goals, ...d.secondary, ...d.guardrails].filter((name) => !known.has(name));
  const rows: MetricChoice[] = [...metrics, ...gone.map((name) => ({ name, type: 'missing' }))];
  return html`<section class="panel" aria-labelledby="metrics-title">
    <h2 id="metrics-title">What it is judged by</h2>
    <p class="hint">Results, the list's headline and "Ship a winner" follow the primary goal. A guardrail is a metric no
      variation may harm: when one does (a one-sided sequential test, safe to check every day), the service stops the
      experiment and says why in the audit log. Metrics left unused are shown only when asked for.</p>
    ${rows.length === 0
      ? html`<p class="hint">This project has no metrics yet: add them under Metrics.</p>`
      : html`<div class="table-scroll" role="region" aria-label="The project's metrics and their parts" tabindex="0"><table>
          <thead><tr><th scope="col">Metric</th><th scope="col">Type</th><th scope="col">Part</th></tr></thead>
          <tbody>${rows.map((m) => html`<tr>
            <th scope="row" class="metric-name">${m.name}${m.type === 'missing' ? html` <span class="field-error">(not in the project any more)</span>` : nothing}</th>
            <td>${m.type === 'missing' ? '—' : `${m.type}${m.inverse ? ' · lower is better' : ''}`}</td>
            <td><label class="sr-only" for=${`role-${m.name}`}>Part of ${m.name}</label>
              <select id=${`role-${m.name}`} class="part" data-metric=${m.name}
                @change=${(e: Event) => set(withRole(d, m.name, (e.target as HTMLSelectElement).value as Role))}>
                ${ROLES.map(({ role, label }) => html`<option value=${role} ?selected=${roleOf(d, m.name) === role}>${label}</option>`)}
              </select></td>
          </tr>`)}</tbody>
        </table></div>`}
    <div class="grid">
      <div class="field">
        <label for="primary-goal">Primary goal</label>
        <select id="primary-goal" ?disabled=${d.goals.length < 2} aria-describedby="primary-goal-hint"
          @change=${(e: Event) => set(withPrimary(d, (e.target as HTMLSelectElement).value))}>
          ${d.goals.length === 0 ? html`<option value="" selected>No goal chosen</option>` : nothing}
          ${d.goals.map((name, i) => html`<option value=${name} ?selected=${i === 0}>${name}</option>`)}
        </select>
        <p id="primary-goal-hint" class="hint">${d.goals.length === 0
          ? 'Without goals, the experiment is judged on every project metric and the first one leads.'
          : 'The goal the decision rests on; the others are corrected together with it.'}</p>
      </div>
      <fieldset class="field">
        <legend>Sample-ratio mismatch</legend>
        <label class="choice"><input type="checkbox" id="stop-on-srm" .checked=${d.stopOnSrm}
          @change=${(e: Event) => set({ stopOnSrm: (e.target as HTMLInputElement).checked })}> Stop the experiment</label>
        <p class="hint">A split far from the weights in the current phase always shows a warning; checked, it also stops
          the experiment.</p>
      </fieldset>
    </div>
  </section>`;
}
