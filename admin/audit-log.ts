import { css, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { keyed } from 'lit/directives/keyed.js';
import type { AccessAuditEntry } from './access.js';
import { accessChange, isAccessEntry } from './access-audit.js';
import type { AdminApi, AuditFilter } from './admin-api.js';
import { navigate } from './admin-events.js';
import { adminStyles } from './admin-styles.js';
import { auditFilterForm, filtering } from './audit-filters.js';
import { auditScopeStyles, auditScopeTabs, SCOPE_PANEL, scopeTabId, type AuditScope } from './audit-scope.js';
import { label } from './cell-label.js';
import { ApiView, type ViewState } from './api-view.js';
import type { AuditEntry, AutomaticStop } from './experience.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-audit': SvcAdminAudit;
  }
}

export type AuditState = ViewState;

/** How many entries the log shows: the latest changes, which is what an audit view is opened for. */
const LIMIT = 50;

/** The top-level fields an entry changed: what a reader scans for before opening the JSON. */
export function changedFields(entry: Pick<AuditEntry, 'before' | 'after'>): string[] {
  const before = entry.before ?? {};
  const after = entry.after ?? {};
  const fields = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...fields].filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]));
}

/**
 * `<svc-admin-audit>`: the project's latest changes, newest first: when (in the reader's locale), who (a person or key,
 * with the role they had), what was done to which item, and the item before and after as JSON text in a disclosure per
 * row, with the address and browser the change came from. Filters (who, kind, item name, dates) are asked of the
 * service. An admin over the whole organization also has a tab with the organization's own log: people and keys
 * added, changed, invited, removed or revoked, each said in a sentence.
 *
 * @tagname svc-admin-audit
 * @summary The console's audit log.
 *
 * @attr scope - `project` (the default) or `organization`: the log of the organization's people and keys, shown only
 * with `org-admin`.
 * @attr org-admin - The signed-in person or key is an admin over the whole organization: the page offers both logs.
 * @attr status - Reflected, read-only: `loading`, `ready`, `empty` or `error`.
 *
 * @fires svc-admin:navigate - The other log was chosen: the console's address follows (`#/audit?scope=organization`).
 */
export class SvcAdminAudit extends ApiView {
  static override styles = [adminStyles, auditScopeStyles, css`
    td,
    th {
      white-space: nowrap;
    }
    /* As cards, an item's name (a privacy request's 35-character id) breaks anywhere rather than run past the card. */
    @media (max-width: 40rem) {
      table.cards td,
      table.cards th {
        white-space: normal;
        overflow-wrap: anywhere;
      }
    }
    form.filters {
      display: grid;
      grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr));
      align-items: start;
      gap: 0.75rem;
      margin-block-end: 1rem;
      padding: 1rem;
      border: 1px solid #d1d9e0;
      border-radius: 6px;
      background: #fff;
    }
    /* In a row of fields, the buttons line up with the inputs, below the labels. */
    @media (min-width: 40rem) {
      form.filters .buttons {
        padding-block-start: calc(1.5em + 0.25rem);
      }
    }
    .who .hint {
      display: block;
    }
    .origin {
      display: block;
      margin-block-start: 0.5rem;
      white-space: normal;
      overflow-wrap: anywhere;
    }
    td.changes {
      inline-size: 50%;
      min-inline-size: 20rem;
      white-space: normal;
    }
    @media (max-width: 40rem) {
      td.changes {
        inline-size: auto;
        min-inline-size: 0;
      }
    }
    .fields {
      display: grid;
      gap: 0.25rem;
      margin: 0.5rem 0 0;
    }
    .fields div {
      display: flex;
      flex-wrap: wrap;
      gap: 0 0.5rem;
    }
    .fields dt {
      font-weight: 600;
    }
    .fields dt::after {
      content: ':';
    }
    .fields dd {
      margin: 0;
      overflow-wrap: anywhere;
    }
    .badge.invite {
      border-color: #80ccff;
      background: #ddf4ff;
      color: #0550ae;
    }
    summary {
      cursor: pointer;
      color: #0969da;
    }
    .diff {
      display: grid;
      grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr));
      gap: 0.75rem;
      margin-block-start: 0.5rem;
    }
    .diff p {
      font-size: 0.8125rem;
      font-weight: 600;
      margin-block-end: 0.25rem;
    }
    pre {
      max-block-size: 20rem;
      margin: 0;
      padding: 0.5rem 0.75rem;
      overflow: auto;
      border: 1px solid #d1d9e0;
      border-radius: 6px;
      background: #f6f8fa;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
  `];

  static override properties = {
    scope: {},
    orgAdmin: { type: Boolean, attribute: 'org-admin' },
    entries: { state: true },
    filter: { state: true },
  };

  declare scope: AuditScope;
  declare orgAdmin: boolean;
  declare entries: (AuditEntry | AccessAuditEntry)[];
  /** The filters applied, sent with every load. */
  declare filter: AuditFilter;
  /** The log the entries and filters are of. */
  #scoped: AuditScope | undefined;
  /** Every actor seen in this log (id → name), offered as the "Person or key" filter's suggestions. */
  #actors = new Map<string, string>();
  #time: Intl.DateTimeFormat | undefined;
  /** Until when a key or an invitation is valid: to the minute. */
  #until: Intl.DateTimeFormat | undefined;

  constructor() {
    super();
    this.scope = 'project';
    this.orgAdmin = false;
    this.entries = [];
    this.filter = {};
  }

  /** The log shown: the organization's only for its admins, whatever the address asked for. */
  #shown(): AuditScope {
    return this.orgAdmin && this.scope === 'organization' ? 'organization' : 'project';
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    const scope = this.#shown();
    if (this.#scoped !== undefined && this.#scoped !== scope) {
      // The other log: its own entries, and no filter (their kinds and names are not the same).
      this.entries = [];
      this.filter = {};
      if (!changed.has('api')) void this.reload();
    }
    this.#scoped = scope;
    super.willUpdate(changed);
  }

  protected override async load(api: AdminApi, signal: AbortSignal): Promise<void> {
    if (!this.entries.length) this.status = 'loading';
    const entries = this.#shown() === 'organization'
      ? await api.organizationAudit(LIMIT, this.filter, signal)
      : await api.audit(LIMIT, this.filter, signal);
    if (signal.aborted) return;
    for (const e of entries) if (e.actor) this.#actors.set(e.actor.id, e.actor.name);
    this.entries = entries;
    this.error = undefined;
    this.status = entries.length ? 'ready' : 'empty';
  }

  override render() {
    const scope = this.#shown();
    return html`
      <div class="toolbar">
        <h1 tabindex="-1">Audit log</h1>
        <button type="button" @click=${() => void this.reload()}>Refresh</button>
      </div>
      ${this.orgAdmin ? auditScopeTabs(scope, this.#choose) : nothing}
      <div id=${SCOPE_PANEL} role=${this.orgAdmin ? 'tabpanel' : nothing} aria-labelledby=${this.orgAdmin ? scopeTabId(scope) : nothing}>
        ${keyed(scope, auditFilterForm({
          scope, filter: this.filter, actors: this.#actors, apply: (filter) => this.#filter(filter), clear: () => this.#filter({}),
        }))}
        ${this.#body(scope)}
      </div>
    `;
  }

  /** Shows the other log at once, and moves the console's address to it (so Back returns to this one). */
  #choose = (scope: AuditScope): void => {
    this.scope = scope;
    navigate(this, scope === 'organization' ? { name: 'audit', scope } : { name: 'audit' });
  };

  #filter(filter: AuditFilter): void {
    this.filter = filter;
    this.status = 'loading';
    void this.reload();
  }

  #body(scope: AuditScope): TemplateResult {
    const organization = scope === 'organization';
    if (this.status === 'loading') {
      return html`<div class="state" role="status"><div class="spinner" aria-hidden="true"></div><p>Loading the audit log…</p></div>`;
    }
    if (this.status === 'error') {
      return html`<div class="alert error" role="alert"><strong>The audit log could not be loaded</strong>${this.error?.message ?? ''}
        <div class="buttons"><button type="button" @click=${() => void this.reload()}>Try again</button></div></div>`;
    }
    if (this.status === 'empty' && filtering(this.filter)) {
      return html`<div class="state"><p>No change matches these filters.</p>
        <button type="button" @click=${() => this.#filter({})}>Clear filters</button></div>`;
    }
    if (this.status === 'empty') {
      return html`<div class="state"><p>${organization
        ? 'No changes yet: people and keys added, changed, invited, removed or revoked show here.'
        : 'No changes yet: what is created, changed or deleted through the API shows here.'}</p></div>`;
    }
    return html`<p class="hint" id="limit-note">The latest ${LIMIT} changes${filtering(this.filter) ? ' that match the filters' : ''}, newest first.</p>
      <div class="table-scroll" role="region" aria-labelledby="caption" tabindex="0">
        <table class="cards">
          <caption id="caption" class="sr-only">Changes to ${organization ? 'the organization\'s people and keys' : 'the project'}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Who</th>
              <th scope="col">Action</th>
              <th scope="col">Kind</th>
              <th scope="col">Name</th>
              <th scope="col">Changes</th>
            </tr>
          </thead>
          <tbody>${this.entries.map((entry) => this.#row(entry))}</tbody>
        </table>
      </div>`;
  }

  #row(entry: AuditEntry | AccessAuditEntry): TemplateResult {
    const time = (this.#time ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }));
    const fields = changedFields(entry);
    const access = isAccessEntry(entry);
    const until = (this.#until ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }));
    const summary = access ? accessChange(entry, (at) => until.format(new Date(at)))
      : entry.action === 'create' ? 'Created' : entry.action === 'delete' ? 'Deleted'
        : entry.action === 'stop' ? `Stopped by the service: ${stopReason(entry.after?.stoppedBy as AutomaticStop | undefined)}`
          : entry.action === 'reweight' ? `Reweighted by the bandit: ${weightChanges(entry)}`
            : entry.action === 'disable' ? `Disabled by the service: ${String(entry.after?.disabledReason ?? 'failing for 24 hours')}`
              : fields.length ? `Changed ${fields.join(', ')}` : 'No field changed';
    return html`<tr data-name=${entry.name} data-action=${entry.action} data-kind=${entry.kind}>
      <td>${label('Time')}<time datetime=${entry.at}>${time.format(new Date(entry.at))}</time></td>
      <td class="who">${label('Who')}<span><span class="mono">${entry.actor?.name ?? entry.keyId}</span>${entry.actor?.via === 'service' ? ' (by the service)' : nothing}${entry.actor
        ? html`<span class="hint">${entry.actor.type}${entry.actor.role ? ` · ${entry.actor.role}` : ''}</span>` : nothing}</span></td>
      <td>${label('Action')}<span><span class="badge ${entry.action}">${entry.action}</span></span></td>
      <td>${label('Kind')}${entry.kind}</td>
      <th scope="row">${entry.name}</th>
      <td class="changes wide">
        <details>
          <summary>${summary}<span class="sr-only">${access ? '' : `: ${entry.kind} ${entry.name}`}, before and after</span></summary>
          ${(entry.action === 'update' || entry.action === 'stop') && fields.length
            ? html`<dl class="fields">${fields.map((f) => html`<div>
                <dt>${f}</dt>
                <dd><code>${shown(entry.before?.[f], f)}</code> <span aria-hidden="true">→</span><span class="sr-only">becomes</span>
                  <code>${shown(entry.after?.[f], f)}</code></dd>
              </div>`)}</dl>`
            : nothing}
          <div class="diff">
            <div><p>Before</p><pre>${entry.before ? JSON.stringify(entry.before, null, 2) : '(none)'}</pre></div>
            <div><p>After</p><pre>${entry.after ? JSON.stringify(entry.after, null, 2) : '(none)'}</pre></div>
          </div>
          ${entry.actor?.ip || entry.actor?.userAgent
            ? html`<p class="hint origin">From ${entry.actor.ip ? html`<span class="mono" data-field="ip">${entry.actor.ip}</span>` : 'an unknown address'}${
              entry.actor.userAgent ? html`, with <span data-field="user-agent">${entry.actor.userAgent}</span>` : nothing}</p>`
            : nothing}
        </details>
      </td>
    </tr>`;
  }
}

/** What an absent field means: the service's default (the file format leaves defaults out). */
const DEFAULTS: Record<string, string> = {
  status: '"running"', traffic: '100', alpha: '0.05', sequential: 'false', sequentialTuning: '5000', correction: '"none"',
  stopOnSrm: 'false', hashVersion: '2', stickiness: '"profile"',
};

/** A field's value as JSON text; an absent one as its default (`"running" (default)`), or `absent` without one. */
export function shown(value: unknown, field = ''): string {
  if (value !== undefined) return JSON.stringify(value);
  const fallback = DEFAULTS[field];
  return fallback === undefined ? 'absent' : `${fallback} (default)`;
}

/** A bandit's reweight as each arm's weight before and after: `feed-1 50 → 12.5, feed-2 50 → 87.5`. */
export function weightChanges(entry: Pick<AuditEntry, 'before' | 'after'>): string {
  const weights = (item: Record<string, unknown> | null): Map<string, unknown> => new Map(
    ((item?.variations ?? []) as { name: string; weight: number }[]).map((v) => [v.name, v.weight]));
  const before = weights(entry.before);
  return [...weights(entry.after)].map(([arm, weight]) => `${arm} ${String(before.get(arm) ?? '–')} → ${String(weight)}`).join(', ');
}

/** Why the service stopped an experiment, in a sentence with its numbers. */
export function stopReason(stop: AutomaticStop | undefined): string {
  if (!stop) return 'no reason recorded';
  const p = (x: number | null | undefined): string => (typeof x !== 'number' ? 'p unknown' : x < 0.0001 ? 'p < 0.0001' : `p = ${x.toPrecision(2)}`);
  if (stop.rule === 'srm') return `sample-ratio mismatch in phase ${stop.phase ?? 1} (${p(stop.srmPValue)}, ${stop.units ?? 0} units)`;
  const uplift = typeof stop.uplift === 'number' ? `${stop.uplift > 0 ? '+' : ''}${(stop.uplift * 100).toFixed(1)}%` : 'an unknown change';
  return `'${stop.variation ?? ''}' harmed the guardrail '${stop.metric ?? ''}' (${uplift} against the control, ${p(stop.pValue)}, `
    + `${stop.units ?? 0} units in phase ${stop.phase ?? 1})`;
}
