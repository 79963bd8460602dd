// The audit log's filters: who (a person's or key's actor id), what kind of item, which item, and a date range. They
// travel as the audit endpoint's query parameters, so the service filters before it counts the latest entries. The
// organization's log has kinds of its own (a person, a key), and its items are named by an email or a key id.
import { html, nothing, type TemplateResult } from 'lit';
import type { AuditFilter } from './admin-api.js';
import type { AuditScope } from './audit-scope.js';

export const AUDIT_KINDS = ['experience', 'metric', 'feed', 'erasure', 'export', 'webhook'] as const;
export const ACCESS_AUDIT_KINDS = ['person', 'key'] as const;

/** Whether any filter is set. */
export const filtering = (filter: AuditFilter): boolean => Object.values(filter).some(Boolean);

/** The filters a submitted form names (empty fields left out). */
export function filterOf(form: HTMLFormElement): AuditFilter {
  const data = new FormData(form);
  const filter: AuditFilter = {};
  for (const name of ['actor', 'kind', 'name', 'since', 'until'] as const) {
    const value = String(data.get(name) ?? '').trim();
    if (value) filter[name] = value;
  }
  return filter;
}

/** What the form needs: the filters applied, the actors seen so far (offered as suggestions), and what to call. */
export interface AuditFilterForm {
  /** Whose log: it says which kinds there are and what an item's name is. */
  scope: AuditScope;
  filter: AuditFilter;
  actors: Map<string, string>;
  apply: (filter: AuditFilter) => void;
  clear: () => void;
}

export function auditFilterForm(f: AuditFilterForm): TemplateResult {
  const submit = (e: SubmitEvent): void => {
    e.preventDefault();
    f.apply(filterOf(e.target as HTMLFormElement));
  };
  const since = f.filter.since ?? '';
  const access = f.scope === 'organization';
  return html`<form class="filters" role="search" aria-label="Filter the audit log" @submit=${submit}>
    <div class="field">
      <label for="filter-actor">Person or key</label>
      <input id="filter-actor" name="actor" list="filter-actors" spellcheck="false" autocapitalize="off" autocomplete="off"
        .value=${f.filter.actor ?? ''} aria-describedby="filter-actor-hint">
      <span class="hint" id="filter-actor-hint">An email or a key id.</span>
      <datalist id="filter-actors">${[...f.actors].map(([id, name]) => html`<option value=${id}>${name === id ? nothing : name}</option>`)}</datalist>
    </div>
    <div class="field">
      <label for="filter-kind">Kind</label>
      <select id="filter-kind" name="kind">
        <option value="" ?selected=${!f.filter.kind}>Any kind</option>
        ${(access ? ACCESS_AUDIT_KINDS : AUDIT_KINDS).map((k) => html`<option value=${k} ?selected=${f.filter.kind === k}>${k}</option>`)}
      </select>
    </div>
    <div class="field">
      <label for="filter-name">${access ? 'Whose access' : 'Item name'}</label>
      <input id="filter-name" name="name" spellcheck="false" autocapitalize="off" autocomplete="off" .value=${f.filter.name ?? ''}
        aria-describedby=${access ? 'filter-name-hint' : nothing}>
      ${access ? html`<span class="hint" id="filter-name-hint">An email or a key id.</span>` : nothing}
    </div>
    <div class="field">
      <label for="filter-since">Since</label>
      <input id="filter-since" name="since" type="date" .value=${since}>
    </div>
    <div class="field">
      <label for="filter-until">Until</label>
      <input id="filter-until" name="until" type="date" min=${since || nothing} .value=${f.filter.until ?? ''}
        aria-describedby="filter-until-hint">
      <span class="hint" id="filter-until-hint">That whole day included.</span>
    </div>
    <div class="buttons">
      <button type="submit" class="primary">Filter</button>
      ${filtering(f.filter) ? html`<button type="button" data-action="clear-filters" @click=${f.clear}>Clear filters</button>` : nothing}
    </div>
  </form>`;
}
