import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { InvitationFor, Me } from './access.js';
import { AdminApi } from './admin-api.js';
import { ApiError } from './api-error.js';
import { navigate, signedIn } from './admin-events.js';
import { adminStyles } from './admin-styles.js';
import { newPasswordFields, newPasswordProblem } from './new-password.js';
import { openProject } from './open-project.js';
import { PasswordReveal } from './password-reveal.js';
import { signInProblem, type SignInProblem } from './sign-in-messages.js';
import { signInStyles } from './sign-in-styles.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-invitation': SvcAdminInvitation;
  }
}

/**
 * `<svc-admin-invitation>`: the page an invitation link opens (`#/invitation/<token>`). It asks the service who the link
 * is for (without using it) and says so; a link that is not valid any more is said to be, with nothing to press. The
 * invited person sets their password (twice, 12 characters or more) and names the project to open; the service then
 * signs them in. Someone
 * already signed in in this browser is offered to sign out first, so the link is never used by the wrong person.
 * The token comes from the address and is sent once; it is never stored.
 *
 * @tagname svc-admin-invitation
 * @summary The console's "Set your password" page.
 *
 * @attr organization - The organization of the invitation (the link's `?organization=`).
 * @attr project - Prefills the project.
 * @attr api - The service's base URL, ending in `/v1`.
 *
 * @fires svc-admin:sign-in - The password is set and the project opened; `detail` is `{api, me}`.
 * @fires svc-admin:navigate - Back to the console, for someone signed in who keeps their session.
 */
export class SvcAdminInvitation extends LitElement {
  static override styles = [adminStyles, signInStyles];

  static override properties = {
    token: { attribute: false },
    organization: {},
    project: {},
    api: {},
    signedIn: { attribute: false },
    busy: { state: true },
    problem: { state: true },
    accepted: { state: true },
    invited: { state: true },
  };

  /** The invitation's token, from the address. Never an attribute. */
  declare token: string;
  declare organization: string;
  declare project: string;
  declare api: string;
  /** The console's session when someone is signed in already: the page offers to end it first. */
  declare signedIn: { api: AdminApi; me: Me } | undefined;
  declare busy: boolean;
  declare problem: SignInProblem | undefined;
  /** The password is set (the invitation is used): only the project remains to open. */
  declare accepted: { api: AdminApi; me: Me } | undefined;
  /** Who the link is for; null: the link is not valid; undefined: not known (yet). */
  declare invited: InvitationFor | null | undefined;
  #reveal = new PasswordReveal(this);
  #lookup: AbortController | undefined;

  constructor() {
    super();
    this.token = '';
    this.organization = '';
    this.project = '';
    this.api = `${location.origin}/v1`;
    this.busy = false;
  }

  override willUpdate(changed: PropertyValues<this>): void {
    if (!changed.has('token') && !changed.has('organization') && !changed.has('signedIn')) return;
    this.#lookup?.abort();
    this.#lookup = undefined;
    if (this.signedIn || this.accepted || !this.token || !this.organization) return;
    this.#lookup = new AbortController();
    void this.#lookUp(this.#lookup.signal);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#lookup?.abort();
  }

  async #lookUp(signal: AbortSignal): Promise<void> {
    try {
      const api = new AdminApi({ organization: this.organization, project: this.project }, this.api);
      this.invited = await api.lookupInvitation(this.token, signal);
    } catch (error) {
      if (signal.aborted) return;
      // Any other failure (too many tries, the network) leaves the form: accepting says what is wrong, if anything.
      if (error instanceof ApiError && error.code === 'invalid_invitation') this.invited = null;
      this.problem = signInProblem(error, 'invitation');
    }
  }

  focusHeading(): void {
    this.renderRoot.querySelector<HTMLElement>('h1')?.focus();
  }

  override render() {
    if (this.signedIn) return this.#signedInCard(this.signedIn.me);
    if (this.invited === null) return this.#invalidCard();
    const problem = this.problem;
    const invalid = problem?.fields[0];
    const accepted = this.accepted;
    return html`<div class="card">
      <h1 tabindex="-1">Set your password</h1>
      ${this.invited && !accepted ? html`<p class="invited-as">You are invited as <strong>${this.invited.email}</strong>.</p>` : nothing}
      ${accepted
        ? html`<div class="alert success" role="status">Your password is set and you are signed in as ${accepted.me.actor.name}.
            Name a project you may work on to open the console.</div>`
        : html`<p class="muted">You were invited to work on an organization's experiments. Choose a password: you will
            sign in with your email and this password from now on.</p>`}
      <form novalidate @submit=${this.#submit}>
        <div class="pair">
          <div class="field">
            <label for="organization">Organization</label>
            <input id="organization" name="organization" required spellcheck="false" autocapitalize="off" autocomplete="off"
              .value=${this.organization} ?readonly=${accepted !== undefined}
              aria-invalid=${invalid === 'organization' ? 'true' : nothing} aria-describedby=${invalid === 'organization' ? 'invitation-error' : nothing}>
          </div>
          <div class="field">
            <label for="project">Project</label>
            <input id="project" name="project" required spellcheck="false" autocapitalize="off" autocomplete="off"
              .value=${this.project}
              aria-invalid=${invalid === 'project' ? 'true' : nothing} aria-describedby=${invalid === 'project' ? 'invitation-error' : nothing}>
          </div>
        </div>
        ${accepted ? nothing : newPasswordFields(invalid === 'password' ? 'new-password' : invalid, 'invitation-error', this.#reveal)}
        ${problem ? html`<div id="invitation-error" class="alert error" role="alert">${problem.message}</div>` : nothing}
        <button type="submit" class="primary" ?disabled=${this.busy}>${this.#label()}</button>
      </form>
    </div>`;
  }

  #label(): string {
    if (this.accepted) return this.busy ? 'Opening…' : 'Open the project';
    return this.busy ? 'Setting your password…' : 'Set password and sign in';
  }

  #invalidCard(): TemplateResult {
    return html`<div class="card">
      <h1 tabindex="-1">Set your password</h1>
      <div id="invitation-error" class="alert error" role="alert">${this.problem?.message}</div>
    </div>`;
  }

  #signedInCard(me: Me): TemplateResult {
    return html`<div class="card">
      <h1 tabindex="-1">Set your password</h1>
      <div class="signed-in">
        <p>This browser is signed in as <strong>${me.actor.name}</strong>. An invitation link sets the password of the
          person it was sent to: sign out first to use it.</p>
      </div>
      <div class="buttons">
        <button type="button" class="primary" ?disabled=${this.busy} @click=${() => void this.#signOut()}>Sign out and continue</button>
        <button type="button" @click=${() => navigate(this, { name: 'experiences' })}>Stay signed in</button>
      </div>
      ${this.problem ? html`<div class="alert error" role="alert">${this.problem.message}</div>` : nothing}
    </div>`;
  }

  async #signOut(): Promise<void> {
    this.busy = true;
    this.problem = undefined;
    try {
      // <svc-admin> hears the session end and shows this page again, as a form.
      await this.signedIn?.api.signOut();
    } catch (error) {
      this.problem = signInProblem(error, 'invitation');
    } finally {
      this.busy = false;
    }
  }

  #submit = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const value = (name: string): string => (form.elements.namedItem(name) as HTMLInputElement | null)?.value ?? '';
    const session = { organization: value('organization').trim(), project: value('project').trim() };
    const empty = (['organization', 'project'] as const).find((f) => !session[f]);
    const weak = this.accepted ? undefined : newPasswordProblem(value('password'), value('confirm'));
    if (empty || weak) {
      this.problem = empty ? { fields: [empty], message: `Enter the ${empty}.` } : { fields: [weak!.field], message: weak!.message };
      return this.#focusInvalid();
    }
    this.#reveal.hideAll();
    this.organization = session.organization;
    this.project = session.project;
    this.busy = true;
    this.problem = undefined;
    try {
      let { api, me } = this.accepted ?? {};
      if (!api || !me) {
        api = new AdminApi(session, this.api);
        me = await api.acceptInvitation(this.token, value('password'));
        this.accepted = { api, me };
      } else if (api.project !== session.project) {
        // The same session (the cookie), another project: a new client, which fetches the session's CSRF token.
        api = new AdminApi(session, this.api);
        me = await api.me();
        this.accepted = { api, me };
      }
      await openProject(api, me);
      signedIn(this, { api, me });
    } catch (error) {
      this.problem = signInProblem(error, 'invitation');
      await this.#focusInvalid();
    } finally {
      this.busy = false;
    }
  };

  async #focusInvalid(): Promise<void> {
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }
}
