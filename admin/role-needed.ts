// The screens a role cannot use. A viewer who types `#/privacy` must not see Export and Erase buttons that the service
// will refuse: the console says, before drawing the screen, which role it needs, in words for the person or the key
// that is signed in, with nothing to press.
import { html, type TemplateResult } from 'lit';
import { ROLES, type Me, type Role } from './access.js';
import type { AdminView } from './admin-events.js';

/** What a screen needs: a role, over the whole organization for the organization's own screens, and what it does. */
export interface ScreenNeed {
  role: Role;
  wholeOrganization: boolean;
  /** What the screen is for, after "cannot": `handle privacy requests`. */
  purpose: string;
}

/** The role a screen needs beyond reading (every signed-in role reads); null for a screen everyone may use. */
export function screenNeed(view: AdminView): ScreenNeed | null {
  switch (view.name) {
    case 'privacy': return { role: 'admin', wholeOrganization: false, purpose: 'handle privacy requests' };
    case 'webhooks': return { role: 'admin', wholeOrganization: false, purpose: 'manage webhooks' };
    case 'access': return { role: 'admin', wholeOrganization: true, purpose: 'manage people and keys' };
    case 'audit':
      return view.scope === 'organization' ? { role: 'admin', wholeOrganization: true, purpose: 'read the organization\'s audit log' } : null;
    case 'editor': return { role: 'editor', wholeOrganization: false, purpose: view.experience === null ? 'create experiences' : 'edit experiences' };
    case 'feed-editor': return { role: 'editor', wholeOrganization: false, purpose: view.feed === null ? 'create feeds' : 'edit feeds' };
    case 'metrics': return view.new ? { role: 'editor', wholeOrganization: false, purpose: 'create metrics' } : null;
    default: return null;
  }
}

/** Whether the signed-in person or key may use a screen that needs `need`. */
export function mayUse(me: Me, need: ScreenNeed): boolean {
  return ROLES.indexOf(me.role) >= ROLES.indexOf(need.role) && (!need.wholeOrganization || me.projects === null);
}

/** The role a screen needs, as a phrase: `the admin role over the whole organization`. */
const roleText = (need: ScreenNeed): string => `the ${need.role} role${need.wholeOrganization ? ' over the whole organization' : ''}`;

/** The signed-in role, as a phrase: `the viewer role`, `the admin role on shop only`. */
const ownText = (me: Me): string => `the ${me.role} role${me.projects ? ` on ${me.projects.join(', ')} only` : ''}`;

/** The screen in place of one `me` cannot use: what it needs and how to get it, in words for a person or a key. */
export function roleNeeded(me: Me, need: ScreenNeed): TemplateResult {
  const person = me.actor.type === 'person';
  return html`<section class="role-needed" aria-labelledby="role-needed-heading">
    <h1 id="role-needed-heading" tabindex="-1" data-heading>You cannot ${need.purpose} here</h1>
    <div class="alert warning">
      <strong>This screen needs ${roleText(need)}.</strong>
      ${person
        ? html`<p>You are signed in as ${me.actor.name}, with ${ownText(me)}. An admin of the organization can give you
            ${roleText(need)} under People and keys.</p>`
        : html`<p>The key ${me.actor.name} has ${ownText(me)}. Sign in with a key that has ${roleText(need)}, or as a person
            who has it.</p>`}
    </div>
  </section>`;
}
