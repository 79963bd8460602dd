import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { Me, SignInOptions } from './access.js';
import { AdminApi, ApiError } from './admin-api.js';
import { signedIn } from './admin-events.js';
import { adminStyles } from './admin-styles.js';
import { openProject } from './open-project.js';
import { PasswordReveal } from './password-reveal.js';
import { signInErrorText, signInProblem, type SignInProblem } from './sign-in-messages.js';
import { signInStyles } from './sign-in-styles.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-sign-in': SvcAdminSignIn;
  }
}

/**
 * `<svc-admin-sign-in>`: the organization and project, then single sign-on (when the organization has it), email and
 * password, or, behind "Use an admin key instead", an admin key. Each opens a session on the service (an HttpOnly
 * cookie) and checks that it opens the project before anything is kept. The form stores nothing: on success it sends
 * `svc-admin:sign-in` with the signed-in client.
 *
 * @tagname svc-admin-sign-in
 * @summary The console's sign-in form.
 *
 * @attr organization - Prefills the organization.
 * @attr project - Prefills the project.
 * @attr api - The service's base URL, ending in `/v1`.
 * @attr notice - Why the form is back (the session ended), shown above it.
 * @attr sign-in-error - A code single sign-on came back with (`?signInError=`), shown as a sentence.
 *
 * @fires svc-admin:sign-in - A session opened the project; `detail` is `{api, me}`.
 */
export class SvcAdminSignIn extends LitElement {
  static override styles = [adminStyles, signInStyles];

  static override properties = {
    organization: {},
    project: {},
    api: {},
    notice: {},
    signInError: { attribute: 'sign-in-error' },
    busy: { state: true },
    problem: { state: true },
    options: { state: true },
    keyOpen: { state: true },
  };

  declare organization: string;
  declare project: string;
  declare api: string;
  declare notice: string;
  declare signInError: string;
  /** Which sign-in is under way. */
  declare busy: 'password' | 'key' | undefined;
  /** Why the last sign-in was refused, and by which form. */
  declare problem: (SignInProblem & { form: 'password' | 'key' }) | undefined;
  /** How the organization typed signs in; `missing` when there is no such organization. */
  declare options: SignInOptions | 'missing' | undefined;
  declare keyOpen: boolean;
  #asked: AbortController | undefined;
  /** The password may be shown as it is typed (the admin key may not: it is pasted, not typed). */
  #reveal = new PasswordReveal(this);

  constructor() {
    super();
    this.organization = '';
    this.project = '';
    this.api = `${location.origin}/v1`;
    this.notice = '';
    this.signInError = '';
    this.keyOpen = false;
  }

  focusHeading(): void {
    this.renderRoot.querySelector<HTMLElement>('h1')?.focus();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#asked?.abort();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('organization') || changed.has('api')) void this.#askOptions();
  }

  override render() {
    const problem = this.problem;
    const sso = typeof this.options === 'object' && this.options.sso;
    const password = typeof this.options !== 'object' || this.options.password;
    return html`<div class="card">
      <h1 tabindex="-1">Sign in</h1>
      ${this.notice ? html`<div class="alert warning" role="status">${this.notice}</div>` : nothing}
      ${this.signInError ? html`<div class="alert error" role="alert" id="sso-error">${signInErrorText(this.signInError)}</div>` : nothing}
      <form class="password" novalidate @submit=${this.#submitPassword}>
        <div class="pair">
          ${this.#field('organization', 'Organization', this.organization, this.options === 'missing'
            ? html`<span class="field-error" id="organization-missing">There is no organization of that name.</span>` : nothing)}
          ${this.#field('project', 'Project', this.project)}
        </div>
        ${sso
          ? html`<button type="button" class="sso" id="sso" @click=${this.#startSso}>Sign in with SSO</button>
              ${password ? html`<p class="or">or with your email and password</p>` : nothing}`
          : nothing}
        ${password
          ? html`${this.#field('email', 'Email', '')}
              ${this.#field('password', 'Password', '')}
              ${problem?.form === 'password' ? this.#problem(problem) : nothing}
              <button type="submit" class="primary" ?disabled=${this.busy !== undefined}>
                ${this.busy === 'password' ? 'Signing in…' : 'Sign in'}</button>`
          : nothing}
      </form>
      <details ?open=${this.keyOpen} @toggle=${(e: Event) => (this.keyOpen = (e.target as HTMLDetailsElement).open)}>
        <summary>Use an admin key instead</summary>
        <form class="key" novalidate @submit=${this.#submitKey}>
          <p class="hint" id="key-hint">An admin key of the organization, or one made for a script. It is sent once to open
            a session and never kept by the page.</p>
          ${this.#field('key', 'Admin key', '')}
          ${problem?.form === 'key' ? this.#problem(problem) : nothing}
          <button type="submit" id="key-submit" ?disabled=${this.busy !== undefined}>
            ${this.busy === 'key' ? 'Signing in…' : 'Sign in with the key'}</button>
        </form>
      </details>
    </div>`;
  }

  /** A field, marked invalid (and described by the refusal) when the refusal names it. */
  #field(name: string, text: string, value: string, after: TemplateResult | typeof nothing = nothing): TemplateResult {
    const problem = this.problem;
    const invalid = problem?.fields.includes(name) || (name === 'organization' && this.options === 'missing');
    const described = [
      problem?.fields.includes(name) ? `${problem.form}-error` : '',
      name === 'organization' && this.options === 'missing' ? 'organization-missing' : '',
      name === 'key' ? 'key-hint' : '',
    ].filter(Boolean).join(' ');
    const type = name === 'password' ? this.#reveal.type(name) : name === 'key' ? 'password' : name === 'email' ? 'email' : 'text';
    const autocomplete = { email: 'username', password: 'current-password', key: 'off' }[name] ?? 'off';
    const input = html`<input id=${name} name=${name} type=${type} autocomplete=${autocomplete} spellcheck="false" autocapitalize="off"
      autocorrect="off" .value=${value} aria-invalid=${invalid ? 'true' : nothing} aria-describedby=${described || nothing}
      @change=${name === 'organization' ? this.#organizationChanged : nothing}
      @input=${name === 'project' ? this.#projectTyped : nothing}>`;
    return html`<div class="field">
      <label for=${name}>${text}</label>
      ${name === 'password' ? html`<div class="password-input">${input}${this.#reveal.button(name)}</div>` : input}
      ${after}
    </div>`;
  }

  #problem(problem: SignInProblem & { form: string }): TemplateResult {
    return html`<div id=${`${problem.form}-error`} class="alert error" role="alert"><strong>Not signed in</strong>${problem.message}</div>`;
  }

  #value(name: string): string {
    return this.renderRoot.querySelector<HTMLInputElement>(`#${name}`)?.value.trim() ?? '';
  }

  #organizationChanged = (): void => {
    this.organization = this.#value('organization');
  };

  /** The SSO link names the project: it follows what is typed. */
  #projectTyped = (): void => {
    this.project = this.#value('project');
  };

  /** How the organization signs in: whether to offer single sign-on. A failure offers the password, as before. */
  async #askOptions(): Promise<void> {
    this.#asked?.abort();
    this.options = undefined;
    const organization = this.organization.trim();
    if (!organization) return;
    const asked = (this.#asked = new AbortController());
    try {
      const options = await new AdminApi({ organization, project: '' }, this.api).signInOptions(asked.signal);
      if (!asked.signal.aborted) this.options = options;
    } catch (error) {
      if (!asked.signal.aborted && error instanceof ApiError && error.code === 'organization_not_found') this.options = 'missing';
    }
  }

  /** Where single sign-on starts: the service's redirect to the provider, naming the project it comes back to. */
  get ssoUrl(): string {
    const query = new URLSearchParams({ organization: this.organization, project: this.project });
    return new URL(`/admin/oidc/start?${query}`, this.api).href;
  }

  /** Single sign-on comes back to this project: it must be named first. Then the browser goes to the provider. */
  #startSso = (): void => {
    const project = this.renderRoot.querySelector<HTMLInputElement>('#project');
    if (project && !this.#value('project')) {
      this.#require('password', [project]);
      return;
    }
    location.assign(this.ssoUrl);
  };

  /** Marks the empty ones of `fields` as required (said in `form`) and focuses the first; true when none is empty. */
  #require(form: 'password' | 'key', fields: HTMLInputElement[]): boolean {
    const empty = fields.filter((f) => !f.value.trim());
    if (!empty.length) return true;
    const names = empty.map((f) => f.labels?.[0]?.textContent?.trim().toLowerCase() ?? f.name);
    this.problem = { form, fields: empty.map((f) => f.id), message: `Enter the ${names.join(' and the ')}.` };
    empty[0]!.focus();
    return false;
  }

  #submitPassword = (event: SubmitEvent): void => {
    event.preventDefault();
    const fields = ['organization', 'project', 'email', 'password'].map((id) => this.renderRoot.querySelector<HTMLInputElement>(`#${id}`)!);
    if (!this.#require('password', fields)) return;
    this.#reveal.hideAll();
    void this.#signIn('password', (api) => api.signInWithPassword(this.#value('email'), fields[3]!.value));
  };

  #submitKey = (event: SubmitEvent): void => {
    event.preventDefault();
    const fields = ['organization', 'project', 'key'].map((id) => this.renderRoot.querySelector<HTMLInputElement>(`#${id}`)!);
    if (!this.#require('key', fields)) return;
    void this.#signIn('key', (api) => api.signInWithKey(this.#value('key')));
  };

  async #signIn(form: 'password' | 'key', open: (api: AdminApi) => Promise<Me>): Promise<void> {
    const session = { organization: this.#value('organization'), project: this.#value('project') };
    this.organization = session.organization;
    this.project = session.project;
    this.busy = form;
    this.problem = undefined;
    const api = new AdminApi(session, this.api);
    let me: Me | undefined;
    try {
      me = await open(api);
      await openProject(api, me);
      signedIn(this, { api, me });
    } catch (error) {
      // A session that cannot open the project is closed again: nothing is left signed in behind a refusal.
      if (me) void api.signOut().catch(() => undefined);
      this.problem = { ...signInProblem(error, form), form };
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLInputElement>('[aria-invalid="true"]')?.focus();
    } finally {
      this.busy = undefined;
    }
  }
}
