// The feed form's merchandising rules as fields: each rule a card of its kind (pin a product at a position; filter,
// boost or bury by conditions), each condition a row of a field, an operator and a value.
import { html, nothing, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import {
  conditionDraft, OPERATORS, RULE_KINDS, ruleDraft, type ConditionDraft, type FeedDraft, type Operator, type RuleDraft, type RuleKind,
} from './feed.js';

/** The catalog fields a condition names most, offered as suggestions; any other (free) field may be typed. */
const FIELDS = ['category', 'brand', 'tags', 'price', 'inventory', 'available', 'title'];
const KIND_LABELS: Record<RuleKind, string> = { pin: 'Pin', filter: 'Filter', boost: 'Boost', bury: 'Bury' };
const OPERATOR_LABELS: Record<Operator, string> = {
  eq: 'is', in: 'is one of', gte: 'at least', lte: 'at most', same: 'same as the page',
};

/** What the rules section needs of the editor: the draft, a way to change it, and a service error for a place. */
export interface RuleFieldsHost {
  draft: FeedDraft;
  set(change: Partial<FeedDraft>): void;
  /** The service's message when it names this place of the form (`rules.2`), with its element id. */
  errorAt(place: string): TemplateResult | typeof nothing;
}

const value = (e: Event): string => (e.target as HTMLInputElement | HTMLSelectElement).value;

function setRule(host: RuleFieldsHost, rule: RuleDraft, change: Partial<RuleDraft>): void {
  host.set({ rules: host.draft.rules.map((r) => (r.key === rule.key ? { ...r, ...change } : r)) });
}

/** The rule's conditions as the draft holds them now. */
const conditionsOf = (host: RuleFieldsHost, rule: RuleDraft): ConditionDraft[] => (host.draft.rules.find((r) => r.key === rule.key) ?? rule).conditions;

function setCondition(host: RuleFieldsHost, rule: RuleDraft, c: ConditionDraft, change: Partial<ConditionDraft>): void {
  setRule(host, rule, { conditions: conditionsOf(host, rule).map((x) => (x.key === c.key ? { ...x, ...change } : x)) });
}

function conditionRow(host: RuleFieldsHost, rule: RuleDraft, c: ConditionDraft, n: number): TemplateResult {
  const id = `c-${c.key}`;
  const numeric = c.op === 'gte' || c.op === 'lte';
  return html`<li class="condition">
    <div class="field">
      <label for=${`${id}-field`}>Field<span class="sr-only"> of condition ${n}</span></label>
      <input id=${`${id}-field`} list="catalog-fields" spellcheck="false" autocapitalize="off" required .value=${c.field}
        @input=${(e: Event) => setCondition(host, rule, c, { field: value(e) })}>
    </div>
    <div class="field">
      <label for=${`${id}-op`}>Operator<span class="sr-only"> of condition ${n}</span></label>
      <select id=${`${id}-op`} @change=${(e: Event) => setCondition(host, rule, c, { op: value(e) as Operator })}>
        ${OPERATORS.map((op) => html`<option value=${op} ?selected=${op === c.op}>${OPERATOR_LABELS[op]}</option>`)}
      </select>
    </div>
    ${c.op === 'same' ? html`<p class="hint same">The field of the product the page is about.</p>` : html`<div class="field">
      <label for=${`${id}-value`}>${c.op === 'in' ? 'Values (a, b)' : 'Value'}<span class="sr-only"> of condition ${n}</span></label>
      <input id=${`${id}-value`} spellcheck="false" autocapitalize="off" inputmode=${numeric ? 'decimal' : nothing} .value=${c.value}
        @input=${(e: Event) => setCondition(host, rule, c, { value: value(e) })}>
      ${numeric ? html`<label class="choice relative"><input type="checkbox" .checked=${c.relative}
        @change=${(e: Event) => setCondition(host, rule, c, { relative: (e.target as HTMLInputElement).checked })}>× the page's<span class="sr-only"> product, condition ${n}</span></label>` : nothing}
    </div>`}
    <button type="button" class="small" ?disabled=${rule.conditions.length <= 1}
      @click=${() => setRule(host, rule, { conditions: conditionsOf(host, rule).filter((x) => x.key !== c.key) })}>Remove<span class="sr-only"> condition ${n}</span></button>
  </li>`;
}

function ruleCard(host: RuleFieldsHost, rule: RuleDraft, i: number): TemplateResult {
  const id = `r-${rule.key}`;
  const rules = host.draft.rules;
  // Handlers read the draft as it is when they run: an edit typed just before may not have rendered yet.
  const move = (to: number): void => {
    const current = host.draft.rules.find((r) => r.key === rule.key) ?? rule;
    const next = host.draft.rules.filter((r) => r.key !== rule.key);
    next.splice(to, 0, current);
    host.set({ rules: next });
  };
  return html`<li class="rule" data-rule=${i}>
    <fieldset>
      <legend>Rule ${i + 1}</legend>
      <div class="rule-head">
        <div class="field">
          <label for=${`${id}-kind`}>Kind<span class="sr-only"> of rule ${i + 1}</span></label>
          <select id=${`${id}-kind`} @change=${(e: Event) => setRule(host, rule, { ...ruleDraft(value(e) as RuleKind), key: rule.key })}>
            ${RULE_KINDS.map((k) => html`<option value=${k} ?selected=${k === rule.kind}>${KIND_LABELS[k]}</option>`)}
          </select>
        </div>
        ${rule.kind === 'pin' ? html`
          <div class="field">
            <label for=${`${id}-pin`}>Product id<span class="sr-only"> of rule ${i + 1}</span></label>
            <input id=${`${id}-pin`} spellcheck="false" autocapitalize="off" required .value=${rule.pin} @input=${(e: Event) => setRule(host, rule, { pin: value(e) })}>
          </div>
          <div class="field short">
            <label for=${`${id}-position`}>Position<span class="sr-only"> of rule ${i + 1}</span></label>
            <input id=${`${id}-position`} type="number" min="1" max="100" step="1" inputmode="numeric" .value=${rule.position}
              @input=${(e: Event) => setRule(host, rule, { position: value(e) })}>
          </div>` : nothing}
        ${rule.kind === 'boost' || rule.kind === 'bury' ? html`<div class="field short">
          <label for=${`${id}-factor`}>Factor<span class="sr-only"> of rule ${i + 1}</span></label>
          <input id=${`${id}-factor`} type="number" min="1" max="100" step="any" inputmode="decimal" .value=${rule.factor}
            @input=${(e: Event) => setRule(host, rule, { factor: value(e) })}>
        </div>` : nothing}
      </div>
      ${rule.kind === 'pin' ? nothing : html`<ul class="conditions">${repeat(rule.conditions, (c) => c.key, (c, n) => conditionRow(host, rule, c, n + 1))}</ul>
        <div class="buttons"><button type="button" class="small" @click=${() => setRule(host, rule, { conditions: [...conditionsOf(host, rule), conditionDraft('price', 'gte')] })}>
          Add condition<span class="sr-only"> to rule ${i + 1}</span></button></div>`}
      ${host.errorAt(`rules.${i}`)}
      <div class="buttons rule-actions">
        <button type="button" class="small" ?disabled=${i === 0} @click=${() => move(i - 1)}>Up<span class="sr-only"> rule ${i + 1}</span></button>
        <button type="button" class="small" ?disabled=${i === rules.length - 1} @click=${() => move(i + 1)}>Down<span class="sr-only"> rule ${i + 1}</span></button>
        <button type="button" class="small" @click=${() => host.set({ rules: host.draft.rules.filter((r) => r.key !== rule.key) })}>Remove<span class="sr-only"> rule ${i + 1}</span></button>
      </div>
    </fieldset>
  </li>`;
}

/** The rules section: one card per rule in the config's order, and buttons that add one of each kind. */
export function ruleFields(host: RuleFieldsHost): TemplateResult {
  const rules = host.draft.rules;
  return html`<section class="panel" aria-labelledby="rules-title">
    <h2 id="rules-title">Rules</h2>
    <p class="hint">Pins place a product at a position; filters keep only products that meet every condition; boosts and buries
      move matching products up or down by a factor.</p>
    <datalist id="catalog-fields">${FIELDS.map((f) => html`<option value=${f}></option>`)}</datalist>
    ${rules.length ? html`<ol class="rules">${repeat(rules, (r) => r.key, (r, i) => ruleCard(host, r, i))}</ol>` : html`<p class="muted">No rules: the strategy's list as it is.</p>`}
    ${host.errorAt('rules')}
    <div class="buttons">${RULE_KINDS.map((k) => html`<button type="button" class="small" data-add=${k}
      @click=${() => host.set({ rules: [...host.draft.rules, ruleDraft(k)] })}>Add ${k}</button>`)}</div>
  </section>`;
}
