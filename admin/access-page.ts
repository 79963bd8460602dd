import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { AccessKey, CreatedKey, Invitation, Person, Role } from './access.js';
import { failure, formError, keyForm, personForm, refusedForRole, spinner, type FormError } from './access-fields.js';
import { keyRow, personRow } from './access-rows.js';
import { accessStyles } from './access-styles.js';
import type { AdminApi } from './admin-api.js';
import { notify } from './admin-events.js';
import { adminStyles } from './admin-styles.js';
import { ApiView } from './api-view.js';
import type { SvcAdminConfirm } from './confirm-dialog.js';
import { copyText, secretBox, secretStyles } from './secret-box.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-access': SvcAdminAccess;
  }
}

/**
 * `<svc-admin-access>`: who may work on the organization, and its API keys. People (an email, a role, all projects or
 * only this one) are listed with how they sign in (a password set, an open invitation), their role to change, a new
 * invitation link and Remove (confirmed), and added by a form, with an invitation link or without (single sign-on).
 * Keys are listed without secrets with Revoke (confirmed), and created by a form. A new key's secret or invitation
 * link shows once in a box with a Copy button, held only in the element's state (never an attribute or web storage)
 * and forgotten when dismissed or when the element leaves the page. The service's refusals show next to the form or
 * the list they are about; a key whose role cannot manage people and keys sees that said plainly.
 *
 * @tagname svc-admin-access
 * @summary The console's people and keys of the organization.
 *
 * @attr status - Reflected, read-only: `loading`, `ready`, `empty` (no person and no key yet) or `error`.
 *
 * @fires svc-admin:notice - A person was added, changed, invited or removed, or a key created or revoked; `detail` says
 * which.
 */
export class SvcAdminAccess extends ApiView {
  static override styles = [adminStyles, accessStyles, secretStyles];

  static override properties = {
    people: { state: true },
    keys: { state: true },
    personRole: { state: true },
    keyRole: { state: true },
    personError: { state: true },
    keyError: { state: true },
    peopleError: { state: true },
    keysError: { state: true },
    busy: { state: true },
    created: { state: true },
    invitation: { state: true },
    copied: { state: true },
  };

  declare people: Person[];
  declare keys: AccessKey[];
  /** The role chosen in "Add a person", whose hint shows under it. */
  declare personRole: Role;
  /** The role chosen in "New key". */
  declare keyRole: Role;
  /** Why "Add a person" was refused. */
  declare personError: FormError | undefined;
  /** Why "New key" was refused. */
  declare keyError: FormError | undefined;
  /** Why a change of role or a removal from the people list failed. */
  declare peopleError: string | undefined;
  /** Why a revoke from the keys list failed. */
  declare keysError: string | undefined;
  /** What is being sent: `person`, `key`, or the row's `person:{email}` / `key:{id}`. */
  declare busy: string | undefined;
  /** The key just created, its secret shown until dismissed. Never reflected, stored or logged. */
  declare created: CreatedKey | undefined;
  /** The invitation just made, its link a whole URL, shown until dismissed. Never reflected, stored or logged. */
  declare invitation: (Invitation & { link: string }) | undefined;
  /** What copying the secret or the link did: a sentence to read out, or empty. */
  declare copied: string;
  #date: Intl.DateTimeFormat | undefined;

  constructor() {
    super();
    this.people = [];
    this.keys = [];
    this.personRole = 'viewer';
    this.keyRole = 'viewer';
    this.copied = '';
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    // Navigating away takes the secret (or the link) along: coming back never shows it again.
    this.#forgetSecret();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // Another session (or signing out) must not see the last one's new key or invitation link.
    if (changed.has('api') && changed.get('api') !== undefined) this.#forgetSecret();
    super.willUpdate(changed);
  }

  protected override async load(api: AdminApi, signal: AbortSignal): Promise<void> {
    if (this.status === 'error' || (!this.people.length && !this.keys.length)) this.status = 'loading';
    const [people, keys] = await Promise.all([api.people(signal), api.keys(signal)]);
    if (signal.aborted) return;
    this.people = people;
    this.keys = keys;
    this.error = undefined;
    this.status = people.length || keys.length ? 'ready' : 'empty';
  }

  override render() {
    return html`
      <div class="toolbar">
        <h1 tabindex="-1">People and keys</h1>
        <button type="button" @click=${() => void this.reload()}>Refresh</button>
      </div>
      ${this.#body()}
      <svc-admin-confirm></svc-admin-confirm>
    `;
  }

  #body(): TemplateResult {
    if (this.status === 'loading') return spinner('Loading people and keys…');
    if (this.status === 'error' && refusedForRole(this.error)) {
      return html`<div class="alert warning" role="alert"><strong>Managing people and keys needs the admin role over the whole organization.</strong>
        Your role changed since you signed in: sign in again, as a person or with a key that has it.
        <p class="hint">${this.error?.message ?? ''}</p></div>`;
    }
    if (this.status === 'error') {
      return html`<div class="alert error" role="alert"><strong>People and keys could not be loaded</strong>${this.error?.message ?? ''}
        <div class="buttons"><button type="button" @click=${() => void this.reload()}>Try again</button></div></div>`;
    }
    this.#date ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
    return html`${this.#peopleSection()}${this.#keysSection()}`;
  }

  // People

  #peopleSection(): TemplateResult {
    return html`<section aria-labelledby="people-title">
      <h2 id="people-title" tabindex="-1">People</h2>
      <p class="hint">Who may work on the organization, and with which role. A person signs in with the password they set
        from an invitation link, or with single sign-on when the organization has it.</p>
      ${this.peopleError ? html`<div class="alert error list" role="alert"><strong>Not changed</strong>${this.peopleError}</div>` : nothing}
      ${this.people.length
        ? html`<div class="table-scroll" role="region" aria-labelledby="people-caption" tabindex="0">
            <table class="cards">
              <caption id="people-caption" class="sr-only">People of the organization</caption>
              <thead><tr>
                <th scope="col">Email</th><th scope="col">Role</th><th scope="col">Projects</th><th scope="col">Sign-in</th>
                <th scope="col">Added</th><th scope="col"><span class="sr-only">Actions</span></th>
              </tr></thead>
              <tbody>${repeat(this.people, (p) => p.email, (p, i) => personRow(p, i, this.busy === `person:${p.email}`, this.#date!, {
                saveRole: (person, index) => void this.#changeRole(person, index),
                remove: (person) => void this.#removePerson(person),
                invite: (person) => void this.#invite(person),
              }))}</tbody>
            </table>
          </div>`
        : html`<div class="state"><p>No people yet. A person is someone who may work on the organization, with a role: add
            their email here, and send them the invitation link to set a password.</p></div>`}
      ${this.#invitationBox()}
      ${personForm({
        error: this.personError, role: this.personRole, setRole: (role) => (this.personRole = role),
        project: this.api?.project ?? '', busy: this.busy, submit: (e) => void this.#addPerson(e),
      })}
    </section>`;
  }

  async #addPerson(e: SubmitEvent): Promise<void> {
    e.preventDefault();
    const api = this.api;
    if (!api) return;
    const form = e.target as HTMLFormElement;
    const data = new FormData(form);
    const email = String(data.get('email') ?? '').trim();
    const role = this.personRole;
    const invite = (e.submitter as HTMLButtonElement | null)?.value !== 'add';
    this.busy = 'person';
    this.personError = undefined;
    this.#forgetSecret();
    try {
      const person = await api.putPerson(email, { role, ...this.#projectsOf(data, api) });
      form.reset();
      this.personRole = 'viewer';
      notify(this, `${person.email} added as ${person.role}.`);
      if (invite) await this.#makeInvitation(api, person.email);
      await this.reload();
      if (this.invitation) await this.#focus('.secret button[data-action="copy"]');
    } catch (error) {
      this.personError = formError(error);
    } finally {
      this.busy = undefined;
    }
  }

  /** A new invitation link for someone already listed (the last one stops working). */
  async #invite(p: Person): Promise<void> {
    const api = this.api;
    if (!api) return;
    this.busy = `person:${p.email}`;
    this.peopleError = undefined;
    this.#forgetSecret();
    try {
      await this.#makeInvitation(api, p.email);
      notify(this, `New invitation link for ${p.email}.`);
    } catch (error) {
      this.peopleError = failure(error).message;
    } finally {
      this.busy = undefined;
    }
    await this.reload();
    if (this.invitation) await this.#focus('.secret button[data-action="copy"]');
  }

  async #makeInvitation(api: AdminApi, email: string): Promise<void> {
    const invitation = await api.invite(email);
    // The service answers a link relative to itself; the person gets it whole.
    this.invitation = { ...invitation, link: new URL(invitation.url, api.base).href };
  }

  /** The new invitation link, this once. */
  #invitationBox(): TemplateResult | typeof nothing {
    const invitation = this.invitation;
    if (!invitation) return nothing;
    const until = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(invitation.expiresAt));
    return secretBox({
      kind: 'invitation', title: `Invitation link for ${invitation.email}`, secret: invitation.link,
      note: `Send it to them yourself: it is not shown again. It works once, until ${until}; a newer link replaces it.`,
      copyLabel: 'Copy link', copied: this.copied,
      copy: () => void this.#copy(invitation.link, 'link'), dismiss: () => void this.#dismiss('#people-title'),
    });
  }

  async #changeRole(p: Person, i: number): Promise<void> {
    const api = this.api;
    const select = this.renderRoot.querySelector<HTMLSelectElement>(`#person-role-${i}`);
    if (!api || !select) return;
    const role = select.value as Role;
    this.busy = `person:${p.email}`;
    this.peopleError = undefined;
    try {
      // A PUT replaces: the person's projects go along unchanged.
      await api.putPerson(p.email, { role, ...(p.projects ? { projects: p.projects } : {}) });
      notify(this, `${p.email} is now ${role}.`);
    } catch (error) {
      this.peopleError = failure(error).message;
    } finally {
      this.busy = undefined;
    }
    await this.reload();
  }

  async #removePerson(p: Person): Promise<void> {
    const answer = await this.#confirm().ask({
      title: `Remove ${p.email}?`,
      describe: () => `${p.email} is taken off the organization's people, with their role.`,
      confirmLabel: () => 'Remove',
      danger: true,
    });
    const api = this.api;
    if (!answer || !api) return;
    this.busy = `person:${p.email}`;
    this.peopleError = undefined;
    try {
      await api.removePerson(p.email);
      notify(this, `${p.email} removed.`);
    } catch (error) {
      this.peopleError = failure(error).message;
    } finally {
      this.busy = undefined;
    }
    await this.reload();
    // The row took its Remove button along: focus goes to the section's heading. A refusal is read out (role=alert).
    if (!this.peopleError) await this.#focus('#people-title');
  }

  // Keys

  #keysSection(): TemplateResult {
    return html`<section aria-labelledby="keys-title">
      <h2 id="keys-title" tabindex="-1">Keys</h2>
      <p class="hint">Admin keys for programs and scripts that use the management API, each with a role.</p>
      ${this.keysError ? html`<div class="alert error list" role="alert"><strong>Not revoked</strong>${this.keysError}</div>` : nothing}
      ${this.keys.length
        ? html`<div class="table-scroll" role="region" aria-labelledby="keys-caption" tabindex="0">
            <table class="cards">
              <caption id="keys-caption" class="sr-only">Keys of the organization</caption>
              <thead><tr>
                <th scope="col">Name</th><th scope="col">Role</th><th scope="col">Projects</th><th scope="col">Created</th>
                <th scope="col">Expires</th><th scope="col"><span class="sr-only">Actions</span></th>
              </tr></thead>
              <tbody>${repeat(this.keys, (k) => k.id, (k) => keyRow(k, this.busy === `key:${k.id}`, this.#date!, (key) => void this.#revoke(key)))}</tbody>
            </table>
          </div>`
        : html`<div class="state"><p>No keys yet. A key lets a program or script use the management API with a role, for
            every project or only this one; revoke it when it is no longer needed.</p></div>`}
      ${this.#secretBox()}
      ${keyForm({
        error: this.keyError, role: this.keyRole, setRole: (role) => (this.keyRole = role),
        project: this.api?.project ?? '', busy: this.busy, submit: (e) => void this.#createKey(e),
      })}
    </section>`;
  }

  /** The new key's secret, this once. Text only: it never goes into an attribute. */
  #secretBox(): TemplateResult | typeof nothing {
    const created = this.created;
    if (!created) return nothing;
    return secretBox({
      kind: 'key', title: `Key ${created.name} created`, secret: created.key,
      note: 'Copy it now: it is not shown again. The service keeps only a digest.',
      copyLabel: 'Copy key', copied: this.copied,
      copy: () => void this.#copy(created.key, 'key'), dismiss: () => void this.#dismiss('#keys-title'),
    });
  }

  async #createKey(e: SubmitEvent): Promise<void> {
    e.preventDefault();
    const api = this.api;
    if (!api) return;
    const form = e.target as HTMLFormElement;
    const data = new FormData(form);
    const expiresAt = String(data.get('expiresAt') ?? '');
    this.busy = 'key';
    this.keyError = undefined;
    this.#forgetSecret();
    try {
      const created = await api.createKey({
        name: String(data.get('name') ?? '').trim(), role: this.keyRole, ...this.#projectsOf(data, api), ...(expiresAt ? { expiresAt } : {}),
      });
      form.reset();
      this.keyRole = 'viewer';
      this.created = created;
      notify(this, `Key ${created.name} created.`);
      await this.reload();
      await this.#focus('.secret button[data-action="copy"]');
    } catch (error) {
      this.keyError = formError(error);
    } finally {
      this.busy = undefined;
    }
  }

  async #copy(secret: string, what: string): Promise<void> {
    this.copied = await copyText(secret, what);
  }

  async #dismiss(heading: string): Promise<void> {
    this.#forgetSecret();
    await this.#focus(heading);
  }

  async #revoke(k: AccessKey): Promise<void> {
    const answer = await this.#confirm().ask({
      title: `Revoke key ${k.name}?`,
      describe: () => `Anything using it stops at once: every request with key ${k.name} is refused from now on. This cannot be undone.`,
      confirmLabel: () => 'Revoke',
      danger: true,
    });
    const api = this.api;
    if (!answer || !api) return;
    this.busy = `key:${k.id}`;
    this.keysError = undefined;
    try {
      await api.revokeKey(k.id);
      if (this.created?.id === k.id) this.#forgetSecret();
      notify(this, `Key ${k.name} revoked.`);
    } catch (error) {
      this.keysError = failure(error).message;
    } finally {
      this.busy = undefined;
    }
    await this.reload();
    if (!this.keysError) await this.#focus('#keys-title');
  }

  // Shared

  #projectsOf(data: FormData, api: AdminApi): { projects?: string[] } {
    return data.get('projects') === 'this' ? { projects: [api.project] } : {};
  }

  #confirm(): SvcAdminConfirm {
    return this.renderRoot.querySelector<SvcAdminConfirm>('svc-admin-confirm')!;
  }

  #forgetSecret(): void {
    this.created = undefined;
    this.invitation = undefined;
    this.copied = '';
  }

  async #focus(selector: string): Promise<void> {
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>(selector)?.focus();
  }
}
