import { css, html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { AdminApi, type Session } from './admin-api.js';
import type { Role } from './access.js';
import type { AdminView } from './admin-events.js';
import { hashOf, viewOf } from './admin-routes.js';
import { clearSession, readSession, saveSession } from './admin-session.js';
import { adminStyles } from './admin-styles.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin': SvcAdmin;
  }
}

/** A view element: each moves focus to its heading when it is shown, so keyboard and screen reader follow. */
interface ViewElement extends HTMLElement {
  updateComplete: Promise<boolean>;
  focusHeading?(): void;
}

/**
 * `<svc-admin>`: the admin console. Signs in with an organization's admin key (kept in sessionStorage only), then
 * lists the project's experiences, edits them, runs their lifecycle, shows their results, privacy requests and the audit log. The
 * organization and project are prefilled from the page's `?organization=&project=`.
 *
 * @tagname svc-admin
 * @summary The admin console: experiences, their lifecycle and results, and the audit log.
 *
 * @attr api - The service's base URL, ending in `/v1`; default `location.origin + '/v1'`.
 */
export class SvcAdmin extends LitElement {
  static override styles = [adminStyles, css`
    :host {
      min-block-size: 100vh;
      background: #f6f8fa;
    }
    header button.skip {
      position: absolute;
      inset-inline-start: 1rem;
      inset-block-start: -4rem;
      z-index: 1;
      background: #fff;
      color: #0969da;
      font-weight: 600;
    }
    header button.skip:focus {
      inset-block-start: 0.5rem;
    }
    header {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.5rem 1.5rem;
      padding: 0.75rem 2rem;
      background: #12355b;
      color: #fff;
    }
    .brand {
      font-size: 1.0625rem;
      font-weight: 700;
    }
    .context {
      color: #d0def0;
      font-size: 0.875rem;
    }
    nav {
      display: flex;
      flex: 1;
      flex-wrap: wrap;
      gap: 0.25rem;
    }
    header button {
      border-color: transparent;
      background: transparent;
      color: #fff;
    }
    header button:hover:not(:disabled) {
      border-color: transparent;
      background: rgb(255 255 255 / 0.12);
    }
    header button[aria-current='page'] {
      background: rgb(255 255 255 / 0.18);
    }
    header button.sign-out {
      border-color: rgb(255 255 255 / 0.5);
    }
    header :focus-visible {
      outline-color: #f5a623;
    }
    main {
      box-sizing: border-box;
      max-inline-size: 84rem;
      margin: 0 auto;
      padding: 1.5rem 2rem 4rem;
    }
    main:focus {
      outline: none;
    }
    .notices:not(:empty) {
      margin-block-end: 1rem;
    }
    .notices .alert {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      justify-content: space-between;
      gap: 0.5rem;
    }
    @media (max-width: 40rem) {
      header {
        padding: 0.5rem 1rem;
        gap: 0.25rem 1rem;
      }
      nav {
        order: 3;
        flex-basis: 100%;
      }
      main {
        padding: 1rem 1rem 3rem;
      }
    }
  `];

  static override properties = {
    api: {},
    session: { state: true },
    view: { state: true },
    keyRole: { state: true },
    notice: { state: true },
  };

  declare api: string;
  declare session: Session | null;
  declare view: AdminView;
  /**
   * What the signed-in key may do, once the service said (`GET /v1/{org}/me`): a viewer sees no write, a non-admin no
   * privacy requests, people or keys. Unknown: everything is shown, and the service refuses what the role does not allow.
   */
  declare keyRole: Role | undefined;
  /** The last change saved, announced in the status region until the next one or a new screen. */
  declare notice: string;
  #client: AdminApi | undefined;
  /** Prefill of the sign-in form: the page's query, else the last session's. */
  #prefill: { organization: string; project: string };

  constructor() {
    super();
    this.api = `${location.origin}/v1`;
    // The screen the address names: a reload, a link or Back lands where it says.
    this.view = viewOf(location.hash);
    this.notice = '';
    const query = new URLSearchParams(location.search);
    const stored = readSession();
    const organization = query.get('organization') ?? stored?.organization ?? '';
    const project = query.get('project') ?? stored?.project ?? '';
    this.#prefill = { organization, project };
    // A link to another project (?project=…) asks for that project's sign-in rather than reopening this tab's.
    this.session = stored && stored.organization === organization && stored.project === project ? stored : null;
  }

  /** The client of the signed-in project (made again when the session or the service's URL changes). */
  #apiClient(): AdminApi | undefined {
    const s = this.session;
    if (!s) return undefined;
    if (!this.#client || this.#client.organization !== s.organization || this.#client.project !== s.project || this.#client.base !== this.api.replace(/\/+$/, '')) {
      this.#client = new AdminApi(s, this.api);
    }
    return this.#client;
  }

  override render() {
    const s = this.session;
    return html`
      <header>
        <button type="button" class="skip" @click=${this.#skip}>Skip to content</button>
        <span class="brand">svc admin</span>
        ${s
          ? html`<span class="context">${s.organization} / ${s.project}</span>
              <nav aria-label="Console">
                <button type="button" aria-current=${!['audit', 'privacy', 'metrics', 'access'].includes(this.view.name) ? 'page' : nothing}
                  @click=${() => this.#go({ name: 'experiences' })}>Experiences</button>
                <button type="button" aria-current=${this.view.name === 'audit' ? 'page' : nothing}
                  @click=${() => this.#go({ name: 'audit' })}>Audit log</button>
                ${this.#admin() ? html`<button type="button" aria-current=${this.view.name === 'privacy' ? 'page' : nothing}
                  @click=${() => this.#go({ name: 'privacy' })}>Privacy</button>` : nothing}
                <!-- Appended: the first three keep their places (links and habits rely on them). -->
                <button type="button" aria-current=${this.view.name === 'metrics' ? 'page' : nothing}
                  @click=${() => this.#go({ name: 'metrics' })}>Metrics</button>
                ${this.#admin() ? html`<button type="button" aria-current=${this.view.name === 'access' ? 'page' : nothing}
                  @click=${() => this.#go({ name: 'access' })}>People and keys</button>` : nothing}
              </nav>
              <button type="button" class="sign-out" @click=${this.#signOut}>Sign out</button>`
          : nothing}
      </header>
      <main id="main" tabindex="-1" @svc-admin:navigate=${(e: CustomEvent<AdminView>) => this.#go(e.detail)}
        @svc-admin:notice=${(e: CustomEvent<string>) => (this.notice = e.detail)}>
        <div class="notices" role="status">${this.notice
          ? html`<div class="alert success"><span>${this.notice}</span>
              <button type="button" class="small" @click=${() => (this.notice = '')}>Dismiss</button></div>`
          : nothing}</div>
        ${s ? this.#view(s) : this.#signIn()}
      </main>
    `;
  }

  #signIn(): TemplateResult {
    return html`<svc-admin-sign-in data-view organization=${this.#prefill.organization} project=${this.#prefill.project} api=${this.api}
      @svc-admin:sign-in=${(e: CustomEvent<Session>) => this.#signedIn(e.detail)}></svc-admin-sign-in>`;
  }

  #view(s: Session): TemplateResult {
    const api = this.#apiClient();
    const v = this.view;
    if (v.name === 'editor') return html`<svc-admin-editor data-view .api=${api} experience=${v.experience ?? ''}></svc-admin-editor>`;
    if (v.name === 'audit') return html`<svc-admin-audit data-view .api=${api}></svc-admin-audit>`;
    if (v.name === 'privacy') return html`<svc-admin-privacy data-view .api=${api}></svc-admin-privacy>`;
    if (v.name === 'metrics') return html`<svc-admin-metrics data-view .api=${api} .readOnly=${this.#readOnly()}></svc-admin-metrics>`;
    if (v.name === 'access') return html`<svc-admin-access data-view .api=${api}></svc-admin-access>`;
    if (v.name === 'results') {
      return html`<svc-admin-results data-view .api=${api} .session=${s} base=${this.api} experience=${v.experience}
        .phase=${v.phase} .metric=${v.metric} .dimension=${v.dimension} .readOnly=${this.#readOnly()}></svc-admin-results>`;
    }
    return html`<svc-admin-experiences data-view .api=${api} .readOnly=${this.#readOnly()}></svc-admin-experiences>`;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('popstate', this.#onAddress);
    window.addEventListener('hashchange', this.#onAddress);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('popstate', this.#onAddress);
    window.removeEventListener('hashchange', this.#onAddress);
    // The address named a screen of this console, which has left the page: a console added later starts afresh.
    if (location.hash.startsWith('#/')) history.replaceState(history.state, '', location.pathname + location.search);
  }

  /** Back, Forward or an address typed: the screen it names (nothing is pushed: the address is already there). */
  #onAddress = (): void => {
    const view = viewOf(location.hash);
    if (hashOf(view) === hashOf(this.view)) return;
    this.notice = '';
    this.view = view;
  };

  #readOnly(): boolean {
    return this.keyRole === 'viewer';
  }

  #admin(): boolean {
    return this.keyRole === undefined || this.keyRole === 'admin';
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // A new session: ask what its key may do (a failure leaves everything shown; the service still refuses).
    if (changed.has('session')) {
      this.keyRole = undefined;
      const api = this.#apiClient();
      void api?.me().then((me) => {
        if (this.#apiClient() === api) this.keyRole = me.role;
      }, () => undefined);
    }
  }

  protected override updated(changed: PropertyValues<this>): void {
    // A new screen (not the first one, which the page's own load announces): focus its heading.
    const moved = (changed.has('view') && changed.get('view') !== undefined) || (changed.has('session') && changed.get('session') !== undefined);
    if (moved) void this.#focusHeading();
  }

  async #focusHeading(): Promise<void> {
    const view = this.renderRoot.querySelector<ViewElement>('[data-view]');
    if (!view) return this.renderRoot.querySelector<HTMLElement>('[data-heading]')?.focus();
    await view.updateComplete;
    view.focusHeading?.();
  }

  /** A new screen clears the last notice: a view that saves something navigates first, then announces it. */
  #go(view: AdminView): void {
    this.notice = '';
    this.view = view;
    // A new entry in the history per screen, so Back returns to the last one.
    const hash = hashOf(view);
    if (location.hash !== hash) history.pushState(null, '', hash);
  }

  #signedIn(session: Session): void {
    saveSession(session);
    this.#prefill = { organization: session.organization, project: session.project };
    this.notice = '';
    // Signed in from a link: the screen the link named.
    this.view = viewOf(location.hash);
    this.session = session;
  }

  #signOut(): void {
    clearSession();
    this.#client = undefined;
    this.notice = '';
    this.session = null;
    this.#go({ name: 'experiences' });
  }

  /** A button rather than a `#main` link: a fragment cannot reach into a shadow root, focus can. */
  #skip(): void {
    this.renderRoot.querySelector<HTMLElement>('main')?.focus();
  }
}
