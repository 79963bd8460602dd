import { css, html, nothing, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { ApiError, type AdminApi } from './admin-api.js';
import { navigate, notify } from './admin-events.js';
import { adminStyles } from './admin-styles.js';
import { label } from './cell-label.js';
import { ApiView, type ViewState } from './api-view.js';
import type { SvcAdminConfirm } from './confirm-dialog.js';
import { kindOf, type Experience } from './experience.js';
import { headlineOf, headlineText, leaderOf, shipFacts } from './headline-result.js';
import type { ResultsAnswer } from '../wire/results-answer.js';
import { ACTION_LABELS, actionsFor, applyAction, consequence, type LifecycleAction } from './lifecycle.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-experiences': SvcAdminExperiences;
  }
}

export type ListState = ViewState;

/**
 * A row's headline result: its text once known (and the variation the first metric favours, the one "Ship a winner"
 * offers first), or why there is none.
 */
type HeadlineState =
  | { text: string; verdict?: string; metric?: string; leader?: string; answer: ResultsAnswer }
  | { error: string }
  | 'loading';

const KIND_LABELS = { experiment: 'Experiment', content: 'Content', feed: 'Feed' } as const;

/**
 * `<svc-admin-experiences>`: the project's experiences as a table (status, kind, traffic, variations, source, version
 * and, for started experiments, a headline result), with Edit, Results and the lifecycle steps per row. Each step is
 * confirmed in a dialog, then written with `If-Match` of the version listed.
 *
 * @tagname svc-admin-experiences
 * @summary The console's experience list.
 *
 * @attr status - Reflected, read-only: `loading`, `ready`, `empty` (no experience yet) or `error`.
 *
 * @fires svc-admin:navigate - Edit, Results or New experience was chosen.
 * @fires svc-admin:notice - A lifecycle step was saved; `detail` says which.
 */
export class SvcAdminExperiences extends ApiView {
  static override styles = [adminStyles, css`
    /* One line per cell: the table scrolls sideways on a narrow screen rather than growing rows of broken words. */
    td {
      white-space: nowrap;
    }
    /* The buttons wrap before the table scrolls: the columns of a long row keep their line, the actions take two. */
    td.actions {
      min-inline-size: 9rem;
    }
    .name-cell {
      min-inline-size: 9rem;
    }
    .sub {
      display: block;
      font-size: 0.8125rem;
      font-weight: 400;
    }
    .variations {
      margin: 0;
      padding: 0;
      list-style: none;
    }
    /* The verdict in the table's words, with the table's colours (words carry it; colour only repeats it). */
    .verdict.positive {
      color: #1a7f37;
      font-weight: 600;
    }
    .verdict.negative {
      color: #cf222e;
      font-weight: 600;
    }
    .action-error {
      margin-block-end: 1rem;
    }
  `];

  static override properties = {
    experiences: { state: true },
    headlines: { state: true },
    actionError: { state: true },
    busy: { state: true },
    readOnly: { type: Boolean },
  };

  /** The signed-in key may only read (a viewer): no New experience, Edit or lifecycle steps. */
  declare readOnly: boolean;

  declare experiences: Experience[];
  declare headlines: ReadonlyMap<string, HeadlineState>;
  /** Why the last lifecycle step failed. */
  declare actionError: string | undefined;
  /** The experience a lifecycle step is being written for. */
  declare busy: string | undefined;

  constructor() {
    super();
    this.experiences = [];
    this.headlines = new Map();
  }

  /** Reads the list, then the headline results of the experiments that have been started. */
  protected override async load(api: AdminApi, signal: AbortSignal): Promise<void> {
    if (!this.experiences.length) this.status = 'loading';
    const experiences = await api.experiences(signal);
    if (signal.aborted) return;
    this.experiences = experiences;
    this.error = undefined;
    this.status = experiences.length ? 'ready' : 'empty';
    await this.#loadHeadlines(api, signal);
  }

  async #loadHeadlines(api: AdminApi, signal: AbortSignal): Promise<void> {
    const started = this.experiences.filter((e) => kindOf(e) === 'experiment' && e.status !== 'draft');
    this.headlines = new Map(started.map((e) => [e.name, 'loading']));
    const locale = document.documentElement.lang || undefined;
    await Promise.all(started.map(async (e) => {
      let state: HeadlineState;
      try {
        const answer = await api.results(e.name, signal);
        const headline = headlineOf(answer);
        const leader = leaderOf(answer, headline);
        const metric = headline.kind === 'best' ? `${headline.metric}${headline.inverse ? ' · lower is better' : ''}` : undefined;
        const verdict = headline.kind === 'best' ? headline.significance?.verdict : undefined;
        state = {
          text: headlineText(headline, locale), answer, ...(verdict ? { verdict } : {}), ...(metric ? { metric } : {}), ...(leader ? { leader } : {}),
        };
      } catch (error) {
        state = { error: error instanceof ApiError ? error.message : String(error) };
      }
      if (signal.aborted) return;
      this.headlines = new Map(this.headlines).set(e.name, state);
    }));
  }

  override render() {
    return html`
      <div class="toolbar">
        <h1 tabindex="-1">Experiences</h1>
        <div class="buttons">
          <button type="button" @click=${() => void this.reload()}>Refresh</button>
          ${this.readOnly ? nothing : html`<button type="button" class="primary" @click=${() => navigate(this, { name: 'editor', experience: null })}>New experience</button>`}
        </div>
      </div>
      ${this.actionError
        ? html`<div class="alert error action-error" role="alert"><strong>The change was not saved</strong>${this.actionError}</div>`
        : nothing}
      ${this.#body()}
      <svc-admin-confirm></svc-admin-confirm>
    `;
  }

  #body(): TemplateResult {
    if (this.status === 'loading') {
      return html`<div class="state" role="status"><div class="spinner" aria-hidden="true"></div><p>Loading experiences…</p></div>`;
    }
    if (this.status === 'error') {
      return html`<div class="alert error" role="alert">
        <strong>The experiences could not be loaded</strong>${this.error?.message ?? ''}
        <div class="buttons"><button type="button" @click=${() => void this.reload()}>Try again</button></div>
      </div>`;
    }
    if (this.status === 'empty') {
      return html`<div class="state">
        <p>No experiences yet${this.readOnly ? '.' : ' — create one.'}</p>
        ${this.readOnly ? nothing : html`<button type="button" class="primary" @click=${() => navigate(this, { name: 'editor', experience: null })}>Create an experience</button>`}
      </div>`;
    }
    return html`<div class="table-scroll" role="region" aria-labelledby="caption" tabindex="0">
      <table class="cards">
        <caption id="caption" class="sr-only">Experiences of the project</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Kind</th>
            <th scope="col" class="num">Traffic</th>
            <th scope="col">Variations</th>
            <th scope="col">Source</th>
            <th scope="col" class="num">Version</th>
            <th scope="col">Result</th>
            <th scope="col"><span class="sr-only">Actions</span></th>
          </tr>
        </thead>
        <tbody>${repeat(this.experiences, (e) => e.name, (e) => this.#row(e))}</tbody>
      </table>
    </div>`;
  }

  #row(e: Experience): TemplateResult {
    const kind = kindOf(e);
    const busy = this.busy === e.name;
    return html`<tr data-name=${e.name}>
      <th scope="row" class="name-cell">${e.name}${e.group ? html`<span class="sub muted">group ${e.group}</span>` : nothing}</th>
      <td>${label('Status')}<span>
        <span class="badge ${e.status}">${e.status}</span>
        ${e.winner ? html`<span class="sub">winner <strong>${e.winner}</strong></span>` : nothing}
        ${e.stoppedBy && e.status === 'stopped'
          ? html`<span class="sub stopped-by">by the service: ${e.stoppedBy.rule === 'guardrail'
            ? `'${e.stoppedBy.variation ?? ''}' harmed ${e.stoppedBy.metric ?? ''}` : 'sample-ratio mismatch'}</span>`
          : nothing}
      </span></td>
      <td>${label('Kind')}${KIND_LABELS[kind]}</td>
      <td class="num">${label('Traffic')}${e.traffic ?? 100}%</td>
      <td>${label('Variations')}${this.#variations(e)}</td>
      <td>${label('Source')}${e.source}</td>
      <td class="num">${label('Version')}${e.version}</td>
      <td class="headline">${label('Result')}<span>${this.#headline(e)}</span></td>
      <td class="actions wide">
        <div class="buttons">
          ${this.readOnly ? nothing : html`<button type="button" class="small" data-action="edit" @click=${() => navigate(this, { name: 'editor', experience: e.name })}>
            Edit<span class="sr-only"> ${e.name}</span></button>`}
          ${kind === 'experiment'
            ? html`<button type="button" class="small" data-action="results" @click=${() => navigate(this, { name: 'results', experience: e.name })}>
                Results<span class="sr-only"> of ${e.name}</span></button>`
            : nothing}
          ${(this.readOnly ? [] : actionsFor(e)).map((action) => html`<button type="button" class="small" data-action=${action} ?disabled=${busy}
            @click=${() => void this.#step(e, action)}>${ACTION_LABELS[action]}<span class="sr-only"> ${e.name}</span></button>`)}
        </div>
      </td>
    </tr>`;
  }

  #variations(e: Experience): TemplateResult | string {
    if (e.variations) {
      return html`<ul class="variations">${e.variations.map((v) => html`<li>${v.name} <span class="muted">${v.weight}%</span></li>`)}</ul>`;
    }
    if (e.feed !== undefined) return `feed ${e.feed}${e.limit !== undefined ? ` · ${e.limit} items` : ''}`;
    return html`<span class="muted">one body for everyone</span>`;
  }

  #headline(e: Experience): TemplateResult | string {
    const state = this.headlines.get(e.name);
    if (!state) return html`<span class="muted" title="Not started">—</span>`;
    if (state === 'loading') return html`<span class="muted">loading…</span>`;
    if ('error' in state) return html`<span class="muted">unavailable: ${state.error}</span>`;
    const text = state.verdict ? html`<span class="verdict ${state.verdict}">${state.text}</span>` : state.text;
    return state.metric ? html`${text}<span class="sub muted">on ${state.metric}</span>` : text;
  }

  /** The variation the first metric's results favour, once they are read. */
  #leader(e: Experience): string | undefined {
    const state = this.headlines.get(e.name);
    return typeof state === 'object' && 'leader' in state ? state.leader : undefined;
  }

  /** The experiment's results, once they are read. */
  #answer(e: Experience): ResultsAnswer | undefined {
    const state = this.headlines.get(e.name);
    return typeof state === 'object' && 'answer' in state ? state.answer : undefined;
  }

  /** Asks, then writes the experience as listed with its new status (and winner), if nobody changed it since. */
  async #step(e: Experience, action: LifecycleAction): Promise<void> {
    const dialog = this.renderRoot.querySelector<SvcAdminConfirm>('svc-admin-confirm')!;
    const variations = (e.variations ?? []).map((v) => v.name);
    const answer = await dialog.ask({
      title: action === 'ship' ? `Ship a winner of '${e.name}'?` : `${ACTION_LABELS[action]} '${e.name}'?`,
      describe: (choice) => consequence(e, action, choice),
      // Before the click: whether the choice is significant on the primary goal, and any guardrail it harms.
      ...(action === 'ship' ? { facts: (choice: string | undefined) => shipFacts(this.#answer(e), choice, document.documentElement.lang || undefined) } : {}),
      confirmLabel: (choice) => (action === 'ship' ? `Ship '${choice ?? ''}'` : ACTION_LABELS[action]),
      // Offered first: the variation the results favour; without results, the control (shipping it changes nothing).
      ...(action === 'ship' ? { choices: { legend: 'Winner', options: variations, initial: this.#leader(e) ?? variations[0] } } : {}),
    });
    if (!answer || !this.api) return;
    this.busy = e.name;
    this.actionError = undefined;
    try {
      const saved = await this.api.saveExperience(e.name, applyAction(e, action, answer.choice), e.version);
      notify(this, action === 'ship'
        ? `'${e.name}' is stopped; everyone now gets '${answer.choice ?? ''}' (version ${saved.version}).`
        : `'${e.name}' is ${saved.status} (version ${saved.version}).`);
    } catch (error) {
      this.actionError = error instanceof ApiError && error.code === 'version_conflict'
        ? `Someone else changed '${e.name}' since this list was loaded. The list now shows the current version: check it and try again.`
        : error instanceof ApiError ? error.message : String(error);
    } finally {
      this.busy = undefined;
    }
    await this.reload();
    await this.updateComplete;
    // The step's button is gone (Start became Stop): focus stays in the row, on its first button.
    this.renderRoot.querySelector<HTMLElement>(`tr[data-name="${CSS.escape(e.name)}"] button`)?.focus();
  }
}
