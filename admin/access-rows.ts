// The rows of the people and keys page: what each shows, and the buttons it offers.
import { html, type TemplateResult } from 'lit';
import { ROLES, type AccessKey, type Person } from './access.js';
import { projectsText } from './access-fields.js';
import { label } from './cell-label.js';

/** How a person signs in, as their row says it. */
export function signInStatus(p: Person, date: Intl.DateTimeFormat, now = Date.now()): TemplateResult {
  if (p.password) return html`password set`;
  if (p.invitedUntil && Date.parse(p.invitedUntil) > now) {
    return html`invited until <time datetime=${p.invitedUntil}>${date.format(new Date(p.invitedUntil))}</time>`;
  }
  if (p.invitedUntil) return html`<span class="muted">invitation expired</span>`;
  return html`<span class="muted">no password yet</span>`;
}

/** What a person's row calls. */
export interface PersonRowActions {
  saveRole: (p: Person, i: number) => void;
  remove: (p: Person) => void;
  invite: (p: Person) => void;
}

export function personRow(p: Person, i: number, busy: boolean, date: Intl.DateTimeFormat, a: PersonRowActions): TemplateResult {
  return html`<tr data-email=${p.email}>
    <th scope="row">${p.email}</th>
    <td>${label('Role')}<div class="role">
      <select id=${`person-role-${i}`} aria-label=${`Role of ${p.email}`} ?disabled=${busy}>
        ${ROLES.map((r) => html`<option .value=${r} ?selected=${p.role === r}>${r}</option>`)}
      </select>
      <button type="button" class="small" data-action="save-role" ?disabled=${busy}
        @click=${() => a.saveRole(p, i)}>Save<span class="sr-only"> role of ${p.email}</span></button>
    </div></td>
    <td class="projects">${label('Projects')}${projectsText(p.projects)}</td>
    <td data-column="sign-in">${label('Sign-in')}<span>${signInStatus(p, date)}</span></td>
    <td>${label('Added')}<time datetime=${p.createdAt}>${date.format(new Date(p.createdAt))}</time></td>
    <td><div class="buttons">
      <button type="button" class="small" data-action="invite" ?disabled=${busy}
        @click=${() => a.invite(p)}>New invitation link<span class="sr-only"> for ${p.email}</span></button>
      <button type="button" class="small danger" data-action="remove" ?disabled=${busy}
        @click=${() => a.remove(p)}>Remove…<span class="sr-only"> ${p.email}</span></button>
    </div></td>
  </tr>`;
}

export function keyRow(k: AccessKey, busy: boolean, date: Intl.DateTimeFormat, revoke: (k: AccessKey) => void): TemplateResult {
  return html`<tr data-id=${k.id}>
    <th scope="row">${k.name}<div class="hint mono">${k.id}</div></th>
    <td>${label('Role')}${k.role}</td>
    <td class="projects">${label('Projects')}${projectsText(k.projects)}</td>
    <td>${label('Created')}<time datetime=${k.createdAt}>${date.format(new Date(k.createdAt))}</time></td>
    <td>${label('Expires')}${k.expiresAt
      ? html`<time datetime=${k.expiresAt}>${date.format(new Date(k.expiresAt))}</time>` : html`<span class="muted">never</span>`}</td>
    <td><button type="button" class="small danger" data-action="revoke" ?disabled=${busy}
      @click=${() => revoke(k)}>Revoke…<span class="sr-only"> ${k.name}</span></button></td>
  </tr>`;
}
