import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { managesOrganization, type Me } from './access.js';
import { AdminApi, ApiError, SIGNED_OUT, type Session, type SignedOutDetail } from './admin-api.js';
import type { AdminView, SignedIn } from './admin-events.js';
import { hashOf, viewOf } from './admin-routes.js';
import { clearSession, readSession, saveSession } from './admin-session.js';
import { adminStyles } from './admin-styles.js';
import { appStyles } from './app-styles.js';
import { mayUse, roleNeeded, screenNeed } from './role-needed.js';

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
 * The screens a signed-in person reaches from the header, in the order they were added (habits rely on it), but for
 * Webhooks, which sits with the other admin screens of the project.
 */
const NAV: { view: AdminView['name']; label: string; admin?: true }[] = [
  { view: 'experiences', label: 'Experiences' },
  { view: 'audit', label: 'Audit log' },
  { view: 'privacy', label: 'Privacy', admin: true },
  { view: 'webhooks', label: 'Webhooks', admin: true },
  { view: 'metrics', label: 'Metrics' },
  { view: 'access', label: 'People and keys', admin: true },
  { view: 'account', label: 'My account' },
  { view: 'feeds', label: 'Feeds' },
];

/** The nav entry a screen belongs to: an experience's editor, results and plan belong to the experiences, a report to the feeds. */
const navOf = (view: AdminView): string =>
  (['editor', 'results', 'plan', 'invitation'].includes(view.name) ? 'experiences' : ['feed-report', 'feed-editor'].includes(view.name) ? 'feeds' : view.name);

/**
 * `<svc-admin>`: the admin console. Signs in on the service (a session cookie the page never reads; sessionStorage
 * keeps only the organization and project), then lists the project's experiences, edits them, runs their lifecycle,
 * shows their results, metrics, the reports of its recommendation feeds, privacy requests, people and keys, the audit
 * log, and the signed-in account. On load with an organization and project (the page's `?organization=&project=`,
 * else this tab's last), it asks the service who is signed in; a session that ended, here or on any call, brings the
 * sign-in form back.
 *
 * @tagname svc-admin
 * @summary The admin console: experiences, their lifecycle and results, and the audit log.
 *
 * @attr api - The service's base URL, ending in `/v1`; default `location.origin + '/v1'`.
 */
export class SvcAdmin extends LitElement {
  static override styles = [adminStyles, appStyles];

  static override properties = {
    api: {},
    session: { state: true },
    me: { state: true },
    checkError: { state: true },
    view: { state: true },
    notice: { state: true },
    signInNotice: { state: true },
    signInError: { state: true },
  };

  declare api: string;
  /** The organization and project being opened or worked on; null: the sign-in form. */
  declare session: Session | null;
  /** Who is signed in, once the service said: until then the console shows that it is checking. */
  declare me: Me | undefined;
  /** Why asking who is signed in failed, other than a session that ended (the service could not be reached). */
  declare checkError: ApiError | undefined;
  declare view: AdminView;
  /** The last change saved, announced in the status region until the next one or a new screen. */
  declare notice: string;
  /** Why the sign-in form is back: the session ended, or the person signed out. */
  declare signInNotice: string;
  /** The code single sign-on came back with (`?signInError=`). */
  declare signInError: string;
  #client: AdminApi | undefined;
  /** Prefill of the sign-in form: the page's query, else the last session's. */
  #prefill: Session;
  /** The screen shown last, so that only a move to another screen moves the focus. */
  #screen: string | undefined;

  constructor() {
    super();
    this.api = `${location.origin}/v1`;
    // The screen the address names: a reload, a link or Back lands where it says.
    this.view = viewOf(location.hash);
    this.notice = '';
    this.signInNotice = '';
    const query = new URLSearchParams(location.search);
    const stored = readSession();
    this.#prefill = { organization: query.get('organization') ?? stored?.organization ?? '', project: query.get('project') ?? stored?.project ?? '' };
    this.signInError = query.get('signInError') ?? '';
    if (this.signInError) {
      // Said once: a reload shows the form without it.
      query.delete('signInError');
      history.replaceState(history.state, '', `${location.pathname}${query.size ? `?${query}` : ''}${location.hash}`);
    }
    // Single sign-on comes back signed in to `?organization=&project=`; a reload reopens this tab's project.
    const { organization, project } = this.#prefill;
    this.session = organization && project && !this.signInError ? { organization, project } : null;
  }

  override render() {
    const me = this.me;
    return html`
      <header>
        <button type="button" class="skip" @click=${this.#skip}>Skip to content</button>
        <span class="brand">svc admin</span>
        ${me && this.session
          ? html`<span class="context">${this.session.organization} / ${this.session.project}</span>
              <nav aria-label="Console">${NAV.filter((n) => !n.admin || me.role === 'admin').map((n) => html`<button type="button"
                aria-current=${navOf(this.view) === n.view ? 'page' : nothing} @click=${() => this.#go({ name: n.view } as AdminView)}>${n.label}</button>`)}
              </nav>
              <button type="button" class="sign-out" @click=${() => void this.#signOut()}>Sign out</button>`
          : nothing}
      </header>
      <main id="main" tabindex="-1" @svc-admin:navigate=${(e: CustomEvent<AdminView>) => this.#go(e.detail)}
        @svc-admin:notice=${(e: CustomEvent<string>) => (this.notice = e.detail)}>
        <div class="notices" role="status">${this.notice
          ? html`<div class="alert success"><span>${this.notice}</span>
              <button type="button" class="small" @click=${() => (this.notice = '')}>Dismiss</button></div>`
          : nothing}</div>
        ${this.#main()}
      </main>
    `;
  }

  #main(): TemplateResult {
    const api = this.#client;
    if (this.me && api) return this.#view(api, this.me);
    if (this.checkError) {
      return html`<div class="alert error" role="alert" data-heading tabindex="-1"><strong>The console could not check your sign-in</strong>
        ${this.checkError.message}
        <div class="buttons"><button type="button" @click=${() => void this.#check()}>Try again</button>
          <button type="button" @click=${() => this.#toSignIn('')}>Sign in again</button></div></div>`;
    }
    if (this.session) {
      return html`<div class="state" role="status"><div class="spinner" aria-hidden="true"></div><p>Checking your sign-in…</p></div>`;
    }
    const v = this.view;
    if (v.name === 'invitation') {
      return html`<svc-admin-invitation data-view .token=${v.token} organization=${this.#prefill.organization}
        project=${this.#prefill.project} api=${this.api} @svc-admin:sign-in=${this.#onSignIn}></svc-admin-invitation>`;
    }
    return html`<svc-admin-sign-in data-view organization=${this.#prefill.organization} project=${this.#prefill.project}
      api=${this.api} notice=${this.signInNotice} sign-in-error=${this.signInError} @svc-admin:sign-in=${this.#onSignIn}></svc-admin-sign-in>`;
  }

  #view(api: AdminApi, me: Me): TemplateResult {
    const v = this.view;
    const readOnly = me.role === 'viewer';
    // An address typed or followed to a screen this role cannot use: said so, with nothing to press.
    const need = screenNeed(v);
    if (need && !mayUse(me, need)) return roleNeeded(me, need);
    if (v.name === 'editor') return html`<svc-admin-editor data-view .api=${api} experience=${v.experience ?? ''}></svc-admin-editor>`;
    if (v.name === 'audit') {
      return html`<svc-admin-audit data-view .api=${api} scope=${v.scope ?? 'project'} ?org-admin=${managesOrganization(me)}></svc-admin-audit>`;
    }
    if (v.name === 'privacy') return html`<svc-admin-privacy data-view .api=${api}></svc-admin-privacy>`;
    if (v.name === 'webhooks') return html`<svc-admin-webhooks data-view .api=${api}></svc-admin-webhooks>`;
    if (v.name === 'metrics') return html`<svc-admin-metrics data-view .api=${api} .readOnly=${readOnly} .creating=${v.new === true}></svc-admin-metrics>`;
    if (v.name === 'feeds') return html`<svc-admin-feeds data-view .api=${api} .readOnly=${readOnly}></svc-admin-feeds>`;
    if (v.name === 'feed-editor') return html`<svc-admin-feed-editor data-view .api=${api} .feed=${v.feed}></svc-admin-feed-editor>`;
    if (v.name === 'feed-report') {
      return html`<svc-admin-feed-report data-view .api=${api} .feed=${v.feed} .from=${v.from} .to=${v.to}></svc-admin-feed-report>`;
    }
    if (v.name === 'access') return html`<svc-admin-access data-view .api=${api}></svc-admin-access>`;
    if (v.name === 'account') return html`<svc-admin-account data-view .api=${api}></svc-admin-account>`;
    if (v.name === 'invitation') {
      return html`<svc-admin-invitation data-view .token=${v.token} .signedIn=${{ api, me }} api=${this.api}></svc-admin-invitation>`;
    }
    if (v.name === 'plan') {
      return html`<svc-admin-plan data-view .api=${api} experience=${v.experience} .metric=${v.metric} .mde=${v.mde} .days=${v.days}></svc-admin-plan>`;
    }
    if (v.name === 'results') {
      return html`<svc-admin-results data-view .api=${api} base=${this.api} experience=${v.experience}
        .phase=${v.phase} .metric=${v.metric} .dimension=${v.dimension} .readOnly=${readOnly}></svc-admin-results>`;
    }
    return html`<svc-admin-experiences data-view .api=${api} .readOnly=${readOnly}></svc-admin-experiences>`;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('popstate', this.#onAddress);
    window.addEventListener('hashchange', this.#onAddress);
    if (this.session && !this.me) void this.#check();
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

  protected override willUpdate(changed: PropertyValues<this>): void {
    // A new service URL: the session is asked about again there.
    if (changed.has('api') && changed.get('api') !== undefined && this.session) void this.#check();
  }

  protected override updated(): void {
    // A move to another screen (not the first one, which the page's own load announces): focus its heading. The same
    // screen with other options (a phase of the results, the audit log's tab) leaves the focus where they were chosen.
    const screen = this.me ? hashOf(this.view).split('?')[0] : this.session || this.checkError ? 'checking' : `signed-out ${this.view.name}`;
    const before = this.#screen;
    this.#screen = screen;
    if (before !== undefined && before !== 'checking' && before !== screen) void this.#focusHeading();
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

  /** The client the views use; its end of session is heard here, whichever view caused it. */
  #use(api: AdminApi | undefined): void {
    this.#client?.removeEventListener(SIGNED_OUT, this.#onSignedOut);
    this.#client = api;
    api?.addEventListener(SIGNED_OUT, this.#onSignedOut);
  }

  /** Asks the service who is signed in for the session's organization (the cookie of an earlier sign-in). */
  async #check(): Promise<void> {
    const session = this.session;
    if (!session) return;
    const api = new AdminApi(session, this.api);
    this.#use(api);
    this.me = undefined;
    this.checkError = undefined;
    try {
      const me = await api.me();
      if (this.#client !== api) return;
      if (me.projects && !me.projects.includes(session.project)) return this.#toSignIn(`You may work on ${me.projects.join(', ')} only: sign in for ${session.project}.`);
      saveSession(session);
      this.me = me;
    } catch (error) {
      if (this.#client !== api) return;
      // A session that ended was heard already (svc-admin:signed-out); any other 401 is no session either.
      if (error instanceof ApiError && error.status === 401) return this.#toSignIn('');
      this.checkError = error instanceof ApiError ? error : new ApiError(0, 'unexpected', String(error));
    }
  }

  #onSignIn = (e: CustomEvent<SignedIn>): void => {
    const { api, me } = e.detail;
    const session = { organization: api.organization, project: api.project };
    saveSession(session);
    this.#prefill = session;
    this.#use(api);
    this.notice = '';
    this.signInNotice = '';
    this.signInError = '';
    this.checkError = undefined;
    // Signed in from a link: the screen the link named; an invitation, used now, leaves the address and the history.
    let view = viewOf(location.hash);
    if (view.name === 'invitation') {
      view = { name: 'experiences' };
      history.replaceState(history.state, '', hashOf(view));
    }
    this.view = view;
    this.session = session;
    this.me = me;
  };

  #onSignedOut = (e: Event): void => {
    const { reason, code } = (e as CustomEvent<SignedOutDetail>).detail;
    const wasIn = this.me !== undefined;
    if (reason === 'ended') {
      this.#toSignIn(wasIn || code === 'session_expired' ? 'Your session ended; sign in again.' : '');
      return;
    }
    this.#toSignIn(reason === 'everywhere' ? 'You signed out on every device.' : 'You signed out.');
    // Signing out to use an invitation stays on it; any other screen is left for the list, signed in again later.
    if (this.view.name !== 'invitation') this.#go({ name: 'experiences' });
  };

  #toSignIn(notice: string): void {
    clearSession();
    this.#use(undefined);
    this.notice = '';
    this.signInNotice = notice;
    this.checkError = undefined;
    this.me = undefined;
    this.session = null;
  }

  async #signOut(): Promise<void> {
    try {
      await this.#client?.signOut();
    } catch (error) {
      this.notice = `Not signed out: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  /** A button rather than a `#main` link: a fragment cannot reach into a shadow root, focus can. */
  #skip(): void {
    this.renderRoot.querySelector<HTMLElement>('main')?.focus();
  }
}
