import { css, html, LitElement, nothing } from 'lit';
import { AdminApi, ApiError } from './admin-api.js';
import { signedIn } from './admin-events.js';
import { adminStyles } from './admin-styles.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-sign-in': SvcAdminSignIn;
  }
}

/** Which field an error of the service is about, so that field is marked invalid. */
const FIELD_OF_CODE: Record<string, 'organization' | 'project' | 'key'> = {
  invalid_credentials: 'key',
  missing_credentials: 'key',
  admin_key_required: 'key',
  key_not_for_project: 'project',
  project_not_found: 'project',
};

/**
 * `<svc-admin-sign-in>`: organization, project and admin key, verified by listing the project's experiences before
 * anything is kept. The form stores nothing: on success it sends `svc-admin:sign-in` with the session.
 *
 * @tagname svc-admin-sign-in
 * @summary The console's sign-in form.
 *
 * @attr organization - Prefills the organization.
 * @attr project - Prefills the project.
 * @attr api - The service's base URL, ending in `/v1`.
 *
 * @fires svc-admin:sign-in - The key opened the project; `detail` is `{organization, project, key}`.
 */
export class SvcAdminSignIn extends LitElement {
  static override styles = [adminStyles, css`
    :host {
      max-inline-size: 26rem;
      margin: 2rem auto;
    }
    .card {
      display: grid;
      gap: 1rem;
      padding: 1.5rem;
      border: 1px solid #d1d9e0;
      border-radius: 10px;
      background: #fff;
    }
    form {
      display: grid;
      gap: 1rem;
    }
    button.primary {
      justify-self: start;
    }
  `];

  static override properties = {
    organization: {},
    project: {},
    api: {},
    busy: { state: true },
    error: { state: true },
  };

  declare organization: string;
  declare project: string;
  declare api: string;
  declare busy: boolean;
  declare error: ApiError | undefined;

  constructor() {
    super();
    this.organization = '';
    this.project = '';
    this.api = `${location.origin}/v1`;
    this.busy = false;
  }

  focusHeading(): void {
    this.renderRoot.querySelector<HTMLElement>('h1')?.focus();
  }

  override render() {
    const invalid = this.error ? (FIELD_OF_CODE[this.error.code] ?? null) : null;
    const described = (field: string) => (invalid === field ? 'sign-in-error' : nothing);
    return html`<div class="card">
      <h1 tabindex="-1">Sign in</h1>
      <p class="muted">Manage a project's experiences with its organization's admin key. The key is kept in this tab only
        and forgotten when you sign out or close it.</p>
      <form @submit=${this.#submit}>
        <div class="field">
          <label for="organization">Organization</label>
          <input id="organization" name="organization" required spellcheck="false" autocapitalize="off"
            .value=${this.organization} aria-invalid=${invalid === 'organization' ? 'true' : nothing} aria-describedby=${described('organization')}>
        </div>
        <div class="field">
          <label for="project">Project</label>
          <input id="project" name="project" required spellcheck="false" autocapitalize="off"
            .value=${this.project} aria-invalid=${invalid === 'project' ? 'true' : nothing} aria-describedby=${described('project')}>
        </div>
        <div class="field">
          <label for="key">Admin key</label>
          <input id="key" name="key" type="password" autocomplete="off" required spellcheck="false"
            aria-invalid=${invalid === 'key' ? 'true' : nothing} aria-describedby=${described('key')}>
        </div>
        ${this.error
          ? html`<div id="sign-in-error" class="alert error" role="alert">
              <strong>Sign-in failed</strong>${this.error.message}
            </div>`
          : nothing}
        <button type="submit" class="primary" ?disabled=${this.busy}>${this.busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </div>`;
  }

  async #submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const value = (name: string): string => (form.elements.namedItem(name) as HTMLInputElement).value.trim();
    const session = { organization: value('organization'), project: value('project'), key: value('key') };
    this.organization = session.organization;
    this.project = session.project;
    this.busy = true;
    this.error = undefined;
    try {
      // Listing the experiences is the cheapest call that needs an admin key of this very project.
      await new AdminApi(session, this.api).experiences();
      signedIn(this, session);
    } catch (error) {
      this.error = error instanceof ApiError ? error : new ApiError(0, 'unexpected', String(error));
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLInputElement>('[aria-invalid="true"]')?.focus();
    } finally {
      this.busy = false;
    }
  }
}
