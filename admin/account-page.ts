import { css, html, nothing, type TemplateResult } from 'lit';
import { ROLE_HINTS, type Me } from './access.js';
import { ApiError, type AdminApi } from './admin-api.js';
import { notify } from './admin-events.js';
import { adminStyles } from './admin-styles.js';
import { ApiView } from './api-view.js';
import type { SvcAdminConfirm } from './confirm-dialog.js';
import { newPasswordFields, newPasswordProblem } from './new-password.js';
import { PasswordReveal } from './password-reveal.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-account': SvcAdminAccount;
  }
}

/** Why a change of password was refused, and the field it is about. */
interface PasswordProblem {
  field: string | undefined;
  message: string;
}

/**
 * `<svc-admin-account>`: who is signed in (a person or a key), their role and projects, and when the session ends; a
 * person with a password changes it here (their other sessions end); "Sign out" ends this browser's session and
 * "Sign out everywhere" (confirmed) every session of theirs. Signing out is heard by `<svc-admin>` through the client's
 * `svc-admin:signed-out`.
 *
 * @tagname svc-admin-account
 * @summary The console's "My account" page.
 *
 * @attr status - Reflected, read-only: `loading`, `ready` or `error`.
 *
 * @fires svc-admin:notice - The password was changed.
 */
export class SvcAdminAccount extends ApiView {
  static override styles = [adminStyles, css`
    section {
      display: grid;
      gap: 0.75rem;
      max-inline-size: 40rem;
      margin-block-end: 1.5rem;
      padding: 1.25rem;
      border: 1px solid #d1d9e0;
      border-radius: 10px;
      background: #fff;
    }
    dl {
      display: grid;
      grid-template-columns: max-content 1fr;
      gap: 0.5rem 1.5rem;
      margin: 0;
    }
    dt {
      color: #59636e;
    }
    dd {
      margin: 0;
      overflow-wrap: anywhere;
    }
    form {
      display: grid;
      gap: 0.75rem;
    }
    button.primary {
      justify-self: start;
    }
    @media (max-width: 40rem) {
      dl {
        grid-template-columns: 1fr;
        gap: 0.125rem;
      }
      dd + dt {
        margin-block-start: 0.5rem;
      }
    }
  `];

  static override properties = {
    me: { state: true },
    busy: { state: true },
    passwordProblem: { state: true },
    sessionsError: { state: true },
  };

  declare me: Me | undefined;
  /** What is being sent: `password`, `sign-out` or `everywhere`. */
  declare busy: string | undefined;
  declare passwordProblem: PasswordProblem | undefined;
  /** Why signing out failed (the service could not be reached). */
  declare sessionsError: string | undefined;
  #time = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  #reveal = new PasswordReveal(this);

  protected override async load(api: AdminApi, signal: AbortSignal): Promise<void> {
    if (!this.me) this.status = 'loading';
    const me = await api.me(signal);
    if (signal.aborted) return;
    this.me = me;
    this.error = undefined;
    this.status = 'ready';
  }

  override render() {
    return html`
      <div class="toolbar"><h1 tabindex="-1">My account</h1></div>
      ${this.#body()}
      <svc-admin-confirm></svc-admin-confirm>
    `;
  }

  #body(): TemplateResult {
    const me = this.me;
    if (this.status === 'loading' || (!me && this.status !== 'error')) {
      return html`<div class="state" role="status"><div class="spinner" aria-hidden="true"></div><p>Loading your account…</p></div>`;
    }
    if (this.status === 'error' || !me) {
      return html`<div class="alert error" role="alert"><strong>Your account could not be loaded</strong>${this.error?.message ?? ''}
        <div class="buttons"><button type="button" @click=${() => void this.reload()}>Try again</button></div></div>`;
    }
    return html`${this.#who(me)}${this.#password(me)}${this.#sessions(me)}`;
  }

  #who(me: Me): TemplateResult {
    const person = me.actor.type === 'person';
    return html`<section aria-labelledby="who-title">
      <h2 id="who-title">Signed in</h2>
      <dl>
        <dt>${person ? 'Person' : 'Key'}</dt>
        <dd><strong>${me.actor.name}</strong>${me.actor.id !== me.actor.name ? html` <span class="mono muted">${me.actor.id}</span>` : nothing}</dd>
        <dt>Role</dt>
        <dd>${me.role} <span class="hint">— ${ROLE_HINTS[me.role]}</span></dd>
        <dt>Projects</dt>
        <dd>${me.projects ? me.projects.join(', ') : html`<span class="muted">all projects of ${this.api?.organization}</span>`}</dd>
        <dt>Session ends</dt>
        <dd>${me.expiresAt
          ? html`<time datetime=${me.expiresAt}>${this.#time.format(new Date(me.expiresAt))}</time>
              <span class="hint">— or after an hour without activity</span>`
          : html`<span class="muted">not said by the service</span>`}</dd>
      </dl>
    </section>`;
  }

  #password(me: Me): TemplateResult {
    if (!me.password) {
      const why = me.actor.type === 'key'
        ? 'A key has no password: revoke it and make a new one to change its secret.'
        : 'You have no password: you sign in with single sign-on. An admin can send you an invitation link to set one.';
      return html`<section aria-labelledby="password-title"><h2 id="password-title">Password</h2><p class="muted">${why}</p></section>`;
    }
    const problem = this.passwordProblem;
    const busy = this.busy === 'password';
    return html`<section aria-labelledby="password-title">
      <h2 id="password-title">Change your password</h2>
      <p class="hint">Your other sessions end when the password changes; this one stays signed in.</p>
      <form novalidate @submit=${this.#changePassword}>
        <div class="field">
          <label for="current-password">Current password</label>
          <div class="password-input">
            <input id="current-password" name="current" type=${this.#reveal.type('current-password')} autocomplete="current-password"
              required spellcheck="false" autocapitalize="off" autocorrect="off"
              aria-invalid=${problem?.field === 'current-password' ? 'true' : nothing}
              aria-describedby=${problem?.field === 'current-password' ? 'password-error' : nothing}>
            ${this.#reveal.button('current-password')}
          </div>
        </div>
        ${newPasswordFields(problem?.field, 'password-error', this.#reveal)}
        ${problem ? html`<div id="password-error" class="alert error" role="alert">${problem.message}</div>` : nothing}
        <button type="submit" class="primary" ?disabled=${busy}>${busy ? 'Changing…' : 'Change password'}</button>
      </form>
    </section>`;
  }

  #sessions(me: Me): TemplateResult {
    const whose = me.actor.type === 'key' ? 'of this key' : 'of yours';
    return html`<section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <p>Sign out ends this browser's session. Sign out everywhere ends every session ${whose}, on every device, this one
        included: use it when a device was lost or shared.</p>
      ${this.sessionsError ? html`<div class="alert error" role="alert"><strong>Still signed in</strong>${this.sessionsError}</div>` : nothing}
      <div class="buttons">
        <button type="button" data-action="sign-out" ?disabled=${this.busy !== undefined}
          @click=${() => void this.#signOut(false)}>${this.busy === 'sign-out' ? 'Signing out…' : 'Sign out'}</button>
        <button type="button" class="danger" data-action="sign-out-everywhere" ?disabled=${this.busy !== undefined}
          @click=${() => void this.#signOut(true)}>${this.busy === 'everywhere' ? 'Signing out…' : 'Sign out everywhere…'}</button>
      </div>
    </section>`;
  }

  #changePassword = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    const api = this.api;
    const form = event.target as HTMLFormElement;
    const value = (name: string): string => (form.elements.namedItem(name) as HTMLInputElement).value;
    if (!api) return;
    const weak = value('current') ? newPasswordProblem(value('password'), value('confirm')) : { field: 'current-password', message: 'Enter your current password.' };
    if (weak) {
      this.passwordProblem = weak;
      return this.#focusInvalid();
    }
    this.#reveal.hideAll();
    this.busy = 'password';
    this.passwordProblem = undefined;
    try {
      await api.changePassword(value('current'), value('password'));
      form.reset();
      notify(this, 'Password changed. Your other sessions were signed out.');
    } catch (error) {
      const e = error instanceof ApiError ? error : new ApiError(0, 'unexpected', String(error));
      this.passwordProblem = e.code === 'wrong_password'
        ? { field: 'current-password', message: 'The current password is not right.' }
        : { field: e.code === 'invalid_request' ? 'new-password' : undefined, message: e.message };
      await this.#focusInvalid();
    } finally {
      this.busy = undefined;
    }
  };

  async #signOut(everywhere: boolean): Promise<void> {
    const api = this.api;
    if (!api) return;
    if (everywhere) {
      const answer = await this.renderRoot.querySelector<SvcAdminConfirm>('svc-admin-confirm')!.ask({
        title: 'Sign out everywhere?',
        describe: () => 'Every session of yours ends, on every device and browser, this one included. You then sign in again here.',
        confirmLabel: () => 'Sign out everywhere',
        danger: true,
      });
      if (!answer) return;
    }
    this.busy = everywhere ? 'everywhere' : 'sign-out';
    this.sessionsError = undefined;
    try {
      // The client then tells <svc-admin>, which shows the sign-in form.
      await (everywhere ? api.signOutEverywhere() : api.signOut());
    } catch (error) {
      this.sessionsError = error instanceof Error ? error.message : String(error);
    } finally {
      this.busy = undefined;
    }
  }

  async #focusInvalid(): Promise<void> {
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }
}
