// Whose changes the audit log shows: the project's, or, for an admin over the whole organization, its people's and
// keys'. Two tabs as WAI-ARIA's tabs pattern has them: one tab stop, and the arrow keys, Home and End move to a tab and
// show it (the log is one request away, so showing on arrival is what a sighted reader expects too).
import { css, html, type TemplateResult } from 'lit';

export type AuditScope = 'project' | 'organization';

const SCOPES: { scope: AuditScope; label: string }[] = [
  { scope: 'project', label: 'This project' },
  { scope: 'organization', label: 'People and keys' },
];

/** The panel the tabs control: the filters and the log below them. */
export const SCOPE_PANEL = 'audit-panel';

export const scopeTabId = (scope: AuditScope): string => `scope-${scope}`;

/** The tabs, `shown` selected; `choose` is called with the scope of a tab clicked or reached with the keyboard. */
export function auditScopeTabs(shown: AuditScope, choose: (scope: AuditScope) => void): TemplateResult {
  const keydown = (e: KeyboardEvent): void => {
    const at = SCOPES.findIndex((s) => s.scope === shown);
    const to = ({ ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: SCOPES.length - 1 } as Record<string, number>)[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const scope = SCOPES[(to + SCOPES.length) % SCOPES.length]!.scope;
    (e.currentTarget as HTMLElement).querySelector<HTMLElement>(`#${scopeTabId(scope)}`)?.focus();
    if (scope !== shown) choose(scope);
  };
  return html`<div class="scopes" role="tablist" aria-label="Changes to" @keydown=${keydown}>${SCOPES.map(({ scope, label }) => html`
    <button type="button" role="tab" id=${scopeTabId(scope)} aria-selected=${scope === shown ? 'true' : 'false'}
      aria-controls=${SCOPE_PANEL} tabindex=${scope === shown ? '0' : '-1'}
      @click=${() => (scope === shown ? undefined : choose(scope))}>${label}</button>`)}
  </div>`;
}

/** A row of tabs on a line, the selected one underlined. */
export const auditScopeStyles = css`
  .scopes {
    display: flex;
    flex-wrap: wrap;
    gap: 0.25rem;
    margin-block-end: 1rem;
    border-block-end: 1px solid #d1d9e0;
  }
  .scopes [role='tab'] {
    margin-block-end: -1px;
    border: 0;
    border-block-end: 2px solid transparent;
    border-radius: 6px 6px 0 0;
    background: none;
    color: #59636e;
  }
  .scopes [role='tab'][aria-selected='true'] {
    border-block-end-color: #0969da;
    color: #1f2328;
    font-weight: 600;
  }
`;
