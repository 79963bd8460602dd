// The experience editor's variations: one row per variation with its name, weight and what it serves (a JSON body, or
// one of the project's feeds when the variations are strategies against each other). A bandit's weights are shown
// but not edited: the service sets them (equal to start, then by its reweights). Names and weights are bound `live`:
// the form itself rewrites them (split evenly, a bandit's equal weights, an arm named after its feed), perhaps
// after the person typed and before a render, when Lit's last value would still match and leave the typing shown.
import { html, nothing, type TemplateResult } from 'lit';
import { live } from 'lit/directives/live.js';
import { repeat } from 'lit/directives/repeat.js';
import { equalWeights } from './bandit-draft.js';
import type { Feed } from './experience.js';
import { formatSum, variationDraft, weightsValid, weightSum, type DraftErrors, type ExperienceDraft, type VariationDraft } from './experience-form.js';
import type { MetricChoice } from './experience-metrics-panel.js';
import { asFeedArms, feedOfBody, holdoutGoals, nextFeedArm, withFeed } from './feed-arms.js';
import { jsonField } from './json-field.js';

/** What the rows need of the editor: the draft as it is now (a handler may run before the next render), and a setter. */
export interface VariationsHost {
  draft(): ExperienceDraft;
  set(change: Partial<ExperienceDraft>): void;
  feeds: readonly Feed[];
  metrics: readonly MetricChoice[];
}

/** The rows with equal weights, as a bandit's variations always start (a new arm starts a new phase). */
export function evenly(variations: readonly VariationDraft[]): VariationDraft[] {
  const weights = equalWeights(variations.length);
  return variations.map((v, i) => ({ ...v, weight: weights[i]! }));
}

/** The variations fieldset: what each variation serves, the table of rows, and the weights' sum (or who sets them). */
export function variationsFields(d: ExperienceDraft, errors: DraftErrors, host: VariationsHost): TemplateResult {
  const bandit = d.allocation === 'bandit';
  const ok = bandit || weightsValid(d);
  const setRows = (variations: VariationDraft[]): void => host.set({ variations: bandit ? evenly(variations) : variations });
  const setRow = (v: VariationDraft, change: Partial<VariationDraft>): void =>
    host.set({ variations: host.draft().variations.map((x) => (x.id === v.id ? { ...x, ...change } : x)) });
  const add = (): void => {
    const current = host.draft();
    const arm = current.feedArms ? nextFeedArm(current.variations, host.feeds) : { name: '', body: {} };
    setRows([...current.variations, variationDraft(arm.name, '0', arm.body)]);
  };
  return html`<fieldset class="variations">
    <legend>Variations <span class="muted">(the first is the control)</span></legend>
    ${armsChoice(d, host)}
    <div class="table-scroll">
      <table>
        <thead><tr><th scope="col">Name</th><th scope="col">Weight (%)${bandit ? html` <span class="muted">· set by the bandit</span>` : nothing}</th>
          <th scope="col">${d.feedArms ? 'Feed' : 'Body (JSON)'}</th><th scope="col"><span class="sr-only">Remove</span></th></tr></thead>
        <tbody>${repeat(d.variations, (v) => v.id, (v, i) => html`<tr>
          <td class="v-name"><label class="v-label sr-only" for=${`v-name-${v.id}`}>Name<span class="sr-only"> of variation ${i + 1}</span></label>
            <input id=${`v-name-${v.id}`} required spellcheck="false" autocapitalize="off" .value=${live(v.name)}
              @input=${(e: Event) => setRow(v, { name: (e.target as HTMLInputElement).value })}></td>
          <td class="v-weight"><label class="v-label sr-only" for=${`v-weight-${v.id}`}>Weight<span class="sr-only"> of variation ${i + 1}</span> (%)</label>
            <input id=${`v-weight-${v.id}`} type="number" min="0" max="100" step="any" inputmode="decimal" required .value=${live(v.weight)}
              ?readonly=${bandit} aria-invalid=${ok ? nothing : 'true'} aria-describedby="weights"
              @input=${(e: Event) => setRow(v, { weight: (e.target as HTMLInputElement).value })}></td>
          <td class="v-body">${d.feedArms ? feedSelect(v, i, host, setRow)
            : jsonField(`v-body-${v.id}`, html`Body<span class="sr-only"> of variation ${i + 1}</span> (JSON)`, v.body, errors[`variations.${i}.body`], null,
              (body) => setRow(v, { body }), 'v-label sr-only')}</td>
          <td class="v-remove"><button type="button" class="small" ?disabled=${d.variations.length <= 1}
            @click=${() => setRows(host.draft().variations.filter((x) => x.id !== v.id))}>Remove<span class="sr-only"> variation ${v.name || i + 1}</span></button></td>
        </tr>`)}</tbody>
      </table>
    </div>
    <div class="weights-row">
      <div class="buttons">
        <button type="button" class="small" @click=${add}>Add variation</button>
        ${bandit ? nothing : html`<button type="button" class="small" @click=${() => host.set({ variations: evenly(host.draft().variations) })}>Split evenly</button>`}
      </div>
      ${bandit
        ? html`<p id="weights" class="weights" role="status">Set by the bandit: equal to start, then moved towards what works.</p>`
        : html`<p id="weights" class=${ok ? 'weights ok' : 'weights bad'} role="status">
            Weights sum to ${formatSum(weightSum(d))}%${ok ? '.' : ' — they must sum to 100%.'}</p>`}
    </div>
  </fieldset>`;
}

/**
 * Bodies or feeds. Choosing feeds gives each row a feed (and a name after its strategy), and a recommendations
 * experiment with no goals yet the holdout's metrics as goals, when the project measures them.
 */
function armsChoice(d: ExperienceDraft, host: VariationsHost): TemplateResult {
  const noFeeds = host.feeds.length === 0;
  const toFeeds = (): void => {
    const current = host.draft();
    const goals = current.goals.length ? {} : { goals: holdoutGoals(host.metrics) };
    host.set({ feedArms: true, variations: asFeedArms(current.variations, host.feeds), ...goals });
  };
  return html`<fieldset class="arms" aria-describedby="arms-hint">
    <legend>Each variation serves</legend>
    <div class="buttons">
      <label class="choice"><input type="radio" name="arms" value="body" .checked=${!d.feedArms} @change=${() => host.set({ feedArms: false })}>
        A body <span class="muted">(JSON)</span></label>
      <label class="choice"><input type="radio" name="arms" value="feed" .checked=${d.feedArms} ?disabled=${noFeeds} @change=${toFeeds}>
        A feed <span class="muted">(strategies against each other)</span></label>
    </div>
    <p id="arms-hint" class="hint">${noFeeds
      ? 'Feeds as variations need a feed: add them under Feeds.'
      : d.feedArms
        ? 'Each variation gets the body {"feed": id}; the page shows that feed\'s list. Judged by the holdout\'s revenue when the project has one.'
        : 'What the Choose API answers for each variation, e.g. {"title": "Free shipping"}.'}</p>
  </fieldset>`;
}

/** A row's feed: the project's feeds (and the row's own id, should it name a feed the project no longer has). */
function feedSelect(v: VariationDraft, i: number, host: VariationsHost, setRow: (v: VariationDraft, change: Partial<VariationDraft>) => void): TemplateResult {
  const id = feedOfBody(v.body);
  const missing = id !== undefined && !host.feeds.some((f) => f.id === id);
  return html`<div class="field">
    <label class="v-label sr-only" for=${`v-feed-${v.id}`}>Feed<span class="sr-only"> of variation ${i + 1}</span></label>
    <select id=${`v-feed-${v.id}`} class="v-feed" aria-invalid=${missing || id === undefined ? 'true' : nothing}
      @change=${(e: Event) => {
        const row = host.draft().variations.find((x) => x.id === v.id) ?? v;
        const next = withFeed(row, Number((e.target as HTMLSelectElement).value), host.feeds);
        setRow(v, { body: next.body, name: next.name });
      }}>
      ${id === undefined ? html`<option value="" selected>Choose a feed</option>` : nothing}
      ${missing ? html`<option value=${String(id)} selected>Feed ${id} (not in the project)</option>` : nothing}
      ${host.feeds.map((f) => html`<option value=${String(f.id)} ?selected=${f.id === id}>Feed ${f.id} · ${f.strategy}</option>`)}
    </select>
  </div>`;
}
