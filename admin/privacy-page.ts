import { css, html, nothing, type TemplateResult } from 'lit';
import { ApiError, type AdminApi, type PrivacyRequest, type PrivacySubject, type Suppression } from './admin-api.js';
import { adminStyles } from './admin-styles.js';
import { label } from './cell-label.js';
import { ApiView, type ViewState } from './api-view.js';
import type { SvcAdminConfirm } from './confirm-dialog.js';
import { notify } from './admin-events.js';

declare global {
  interface HTMLElementTagNameMap {
    'svc-admin-privacy': SvcAdminPrivacy;
  }
}

export type PrivacyState = ViewState;

/** How often the page reads the requests again while one is not done. */
const POLL_MS = 1000;

const SUBJECTS: { kind: PrivacySubject['kind']; label: string; hint: string }[] = [
  { kind: 'userId', label: 'User id', hint: 'The id your site identifies the person with (identify).' },
  { kind: 'email', label: 'Email', hint: 'An email the person gave with a consent decision.' },
  { kind: 'profileId', label: 'Profile id', hint: 'The browser\'s id: localStorage["svc.profileId"] on the person\'s device.' },
];

/** A request's counts as a sentence: `212 events, 9 exposures, …` (kinds with none left out). */
export function countsText(counts: Record<string, number>): string {
  const parts = Object.entries(counts).filter(([, n]) => n > 0).map(([kind, n]) => `${n.toLocaleString()} ${kind}`);
  return parts.length ? parts.join(', ') : 'nothing found';
}

/**
 * `<svc-admin-privacy>`: the project's privacy requests. A form names a person (user id, email, or profile id with its
 * source) and asks for an export of their data or their erasure (confirmed first); the requests list shows each with
 * its status, read again every second until all are done; a done export downloads as JSON. The suppression list shows
 * the ids erased.
 *
 * @tagname svc-admin-privacy
 * @summary The console's privacy requests and suppression list.
 *
 * @attr status - Reflected, read-only: `loading`, `ready`, `empty` or `error`.
 */
export class SvcAdminPrivacy extends ApiView {
  static override styles = [adminStyles, css`
    form {
      display: grid;
      gap: 0.75rem;
      max-inline-size: 40rem;
      margin-block-end: 2rem;
      padding: 1.25rem;
      border: 1px solid #d1d9e0;
      border-radius: 10px;
      background: #fff;
    }
    fieldset {
      display: flex;
      flex-wrap: wrap;
      gap: 0.25rem 1rem;
      margin: 0;
      padding: 0;
      border: 0;
    }
    legend {
      margin-block-end: 0.25rem;
      font-weight: 600;
    }
    form h2 {
      margin-block-start: 0;
    }
    .fields {
      display: grid;
      grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr));
      gap: 0.75rem;
    }
    label.field {
      display: grid;
      gap: 0.25rem;
      font-weight: 600;
    }
    h2 {
      margin-block: 1.5rem 0.5rem;
      font-size: 1.125rem;
    }
    td,
    th {
      white-space: nowrap;
    }
    td.counts {
      white-space: normal;
    }
    .mono {
      overflow-wrap: anywhere;
      white-space: normal;
    }
  `];

  static override properties = {
    requests: { state: true },
    suppressions: { state: true },
    kind: { state: true },
    busy: { state: true },
    formError: { state: true },
  };

  declare requests: PrivacyRequest[];
  declare suppressions: Suppression[];
  declare kind: PrivacySubject['kind'];
  declare busy: boolean;
  declare formError: string;
  #poll: ReturnType<typeof setTimeout> | undefined;
  #time: Intl.DateTimeFormat | undefined;

  constructor() {
    super();
    this.requests = [];
    this.suppressions = [];
    this.kind = 'userId';
    this.busy = false;
    this.formError = '';
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.#poll);
  }

  protected override async load(api: AdminApi, signal: AbortSignal): Promise<void> {
    clearTimeout(this.#poll);
    if (!this.requests.length) this.status = 'loading';
    const [erasures, exports, suppressions] = await Promise.all([
      api.privacyRequests('erasures', signal), api.privacyRequests('exports', signal), api.suppressions(signal),
    ]);
    if (signal.aborted) return;
    this.requests = [...erasures, ...exports].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    this.suppressions = suppressions;
    this.error = undefined;
    this.status = this.requests.length ? 'ready' : 'empty';
    if (this.requests.some((r) => r.status !== 'done')) this.#poll = setTimeout(() => void this.reload(), POLL_MS);
  }

  override render() {
    return html`
      <div class="toolbar">
        <h1 tabindex="-1">Privacy requests</h1>
        <button type="button" @click=${() => void this.reload()}>Refresh</button>
      </div>
      <p class="hint">Answer a person's request to see their data (export) or to be erased. The service finds every id linked
        to the one you give (their other devices, user ids and emails).</p>
      ${this.#form()}
      <h2 id="requests">Requests</h2>
      ${this.#requests()}
      <h2 id="suppressed">Suppression list</h2>
      ${this.#suppressions()}
      <svc-admin-confirm></svc-admin-confirm>
    `;
  }

  #form(): TemplateResult {
    const subject = SUBJECTS.find((s) => s.kind === this.kind)!;
    return html`<form @submit=${(e: SubmitEvent) => void this.#submit(e)} aria-labelledby="new-request">
      <h2 id="new-request">New request</h2>
      <fieldset>
        <legend>Name the person by</legend>
        ${SUBJECTS.map((s) => html`<label><input type="radio" name="kind" value=${s.kind} .checked=${this.kind === s.kind}
          @change=${() => { this.kind = s.kind; this.formError = ''; }}> ${s.label}</label>`)}
      </fieldset>
      <div class="fields">
        <label class="field">${subject.label}
          <input name="value" required autocomplete="off" spellcheck="false" aria-describedby="value-hint"
            type=${this.kind === 'email' ? 'email' : 'text'}>
        </label>
        ${this.kind === 'profileId'
          ? html`<label class="field">Source<input name="sourceId" required value="web" autocomplete="off" spellcheck="false"></label>`
          : nothing}
      </div>
      <p class="hint" id="value-hint">${subject.hint}</p>
      ${this.formError ? html`<div class="alert error" role="alert">${this.formError}</div>` : nothing}
      <div class="buttons">
        <button type="submit" name="action" value="exports" ?disabled=${this.busy}>Export their data</button>
        <button type="submit" name="action" value="erasures" class="danger" ?disabled=${this.busy}>Erase them…</button>
      </div>
    </form>`;
  }

  async #submit(e: SubmitEvent): Promise<void> {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const action = (e.submitter as HTMLButtonElement | null)?.value === 'erasures' ? 'erasures' : 'exports';
    const data = new FormData(form);
    const value = String(data.get('value') ?? '').trim();
    const subject: PrivacySubject = this.kind === 'profileId'
      ? { kind: 'profileId', profileId: value, sourceId: String(data.get('sourceId') ?? '').trim() }
      : this.kind === 'email' ? { kind: 'email', email: value } : { kind: 'userId', userId: value };
    if (action === 'erasures') {
      const dialog = this.renderRoot.querySelector<SvcAdminConfirm>('svc-admin-confirm')!;
      const confirmed = await dialog.ask({
        title: 'Erase this person?',
        describe: () => `Everything held about ${value} and every id linked to it is deleted, and those ids are refused from now on. `
          + 'Consent records stay as proof, without the person. This cannot be undone.',
        confirmLabel: () => 'Erase',
        danger: true,
      });
      if (confirmed === null) return;
    }
    const api = this.api;
    if (!api) return;
    this.busy = true;
    this.formError = '';
    try {
      await api.createPrivacyRequest(action, subject);
      form.reset();
      notify(this, action === 'erasures' ? `Erasure of ${value} requested.` : `Export of ${value} requested.`);
      await this.reload();
    } catch (error) {
      this.formError = error instanceof ApiError ? error.message : String(error);
    } finally {
      this.busy = false;
    }
  }

  #requests(): TemplateResult {
    if (this.status === 'loading') {
      return html`<div class="state" role="status"><div class="spinner" aria-hidden="true"></div><p>Loading the requests…</p></div>`;
    }
    if (this.status === 'error') {
      return html`<div class="alert error" role="alert"><strong>The requests could not be loaded</strong>${this.error?.message ?? ''}
        <div class="buttons"><button type="button" @click=${() => void this.reload()}>Try again</button></div></div>`;
    }
    if (this.status === 'empty') return html`<div class="state"><p>No requests yet.</p></div>`;
    this.#time ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
    const time = this.#time;
    return html`<div class="table-scroll" role="region" aria-labelledby="requests" tabindex="0">
      <table class="cards">
        <thead><tr>
          <th scope="col">Requested</th><th scope="col">Kind</th><th scope="col">Person</th><th scope="col">Status</th>
          <th scope="col">Rows</th><th scope="col"><span class="sr-only">Actions</span></th>
        </tr></thead>
        <tbody>${this.requests.map((r) => html`<tr data-id=${r.id}>
          <td>${label('Requested')}<time datetime=${r.createdAt}>${time.format(new Date(r.createdAt))}</time></td>
          <td>${label('Kind')}${r.kind === 'erasure' ? 'Erasure' : 'Export'}</td>
          <th scope="row">${r.subject.value === undefined ? html`<span class="hint">(${r.subject.kind}, erased)</span>` : html`<span class="mono">${r.subject.value}</span>`}</th>
          <td>${label('Status')}<span role="status"><span class="badge ${r.status === 'done' ? 'running' : 'draft'}">${r.status}</span></span></td>
          <td class="counts">${label('Rows')}${r.status === 'done' ? countsText(r.counts) : '…'}</td>
          <td>${r.kind === 'export' && r.status === 'done' && r.counts.erased === undefined
            ? html`<button type="button" class="small" @click=${() => void this.#download(r)}>Download JSON<span class="sr-only"> of ${r.subject.value}</span></button>`
            : nothing}</td>
        </tr>`)}</tbody>
      </table>
    </div>`;
  }

  #suppressions(): TemplateResult {
    if (this.status !== 'ready' && this.status !== 'empty') return html``;
    if (this.suppressions.length === 0) return html`<div class="state"><p>No ids are suppressed: nobody has been erased.</p></div>`;
    return html`<p class="hint">Erased ids: whatever names them later (an old outbox, a consent record) is refused and stored nowhere.</p>
      <div class="table-scroll" role="region" aria-labelledby="suppressed" tabindex="0">
        <table class="cards">
          <thead><tr><th scope="col">Id</th><th scope="col">Kind</th><th scope="col">Since</th><th scope="col">Request</th></tr></thead>
          <tbody>${this.suppressions.map((s) => html`<tr>
            <th scope="row"><span class="mono">${s.value}</span></th>
            <td>${label('Kind')}${s.kind}</td>
            <td>${label('Since')}<time datetime=${s.createdAt}>${this.#time?.format(new Date(s.createdAt)) ?? s.createdAt}</time></td>
            <td>${label('Request')}<span class="mono">${s.requestId}</span></td>
          </tr>`)}</tbody>
        </table>
      </div>`;
  }

  async #download(request: PrivacyRequest): Promise<void> {
    const api = this.api;
    if (!api) return;
    try {
      const data = await api.exportData(request.id);
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `${request.id}.json`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (error) {
      this.formError = error instanceof ApiError ? error.message : String(error);
    }
  }
}
