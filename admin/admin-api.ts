// The console's one way to the management API: JSON over fetch. The service's session cookie (HttpOnly, same origin)
// says who is signed in, so the page never holds a secret; the CSRF token the service hands out with the session is
// kept in memory only and sent with every write. The service's `{error:{code, message}}` arrives as an ApiError.
import type { FeedPreviewAnswer, FoundProduct } from '../wire/feed-preview.js';
import type { FeedReportAnswer } from '../wire/feed-report.js';
import type { PlanAnswer } from '../wire/plan-answer.js';
import type { ResultsAnswer } from '../wire/results-answer.js';
import type { AuditEntry, Experience, ExperienceItem } from './experience.js';
import type { FeedItem, FeedRecord } from './feed.js';
import type { Metric, MetricItem } from './metric.js';
import type { AccessAuditEntry, AccessKey, CreatedKey, Invitation, InvitationFor, Me, NewKey, Person, PersonAccess, SignInOptions } from './access.js';
import { ApiError, retryAfterSeconds } from './api-error.js';
import { auditQuery, type AuditFilter } from './audit-query.js';
import { reportQuery, type FeedReportQuery } from './feed-report-query.js';
import type { PrivacyRequest, PrivacySubject, Suppression } from './privacy.js';

export { ApiError };
export type { AuditFilter, FeedReportQuery, PrivacyRequest, PrivacySubject, Suppression };

/** Where the console works: the organization and the project it manages. Nothing secret. */
export interface Session {
  organization: string;
  project: string;
}

/** Why the console is signed out: the session `ended` on the service's side, or the person signed out. */
export interface SignedOutDetail {
  reason: 'ended' | 'signed-out' | 'everywhere';
  /** The service's code when the session ended (`session_expired`, `missing_credentials`). */
  code?: string;
}

/** The event an AdminApi sends when its session is over; `<svc-admin>` then shows the sign-in form. */
export const SIGNED_OUT = 'svc-admin:signed-out';

/** The codes of a request whose session is gone (expired, signed out elsewhere, person removed, key revoked). */
const SESSION_OVER = new Set(['session_expired', 'missing_credentials']);

/** What a page's own project request may set (admin/webhooks-api.ts). */
export type ProjectRequestOptions = Pick<RequestOptions, 'method' | 'body' | 'version' | 'signal'>;

interface RequestOptions {
  method?: 'GET' | 'PUT' | 'DELETE' | 'POST';
  body?: unknown;
  /** The version the caller read: sent as `If-Match`, so a write over someone else's change is refused (412). */
  version?: number;
  /** Create only (`If-None-Match: *`): an item of the same name already there is refused (412). */
  createOnly?: boolean;
  signal?: AbortSignal;
  /** A sign-in request: a 401 is a refused sign-in, not the end of a session. */
  signingIn?: boolean;
  /** Only for signing in with an admin key: the key, sent once as `Authorization: Bearer`. */
  bearer?: string;
}

/**
 * The management API of one project, e.g. `new AdminApi({organization: 'acme', project: 'shop'})`, signed in by
 * `signInWithPassword`, `signInWithKey` or `acceptInvitation`, or by the cookie of an earlier sign-in (`me()` then
 * fetches the CSRF token). Every method rejects with an `ApiError`; an abort rejects with the signal's reason.
 *
 * @fires svc-admin:signed-out - The session ended (a 401 `session_expired` or `missing_credentials` from any call) or
 * was closed by `signOut` / `signOutEverywhere`; `detail` is a `SignedOutDetail`.
 *
 * @example
 * const api = new AdminApi({ organization: 'acme', project: 'shop' });
 * await api.signInWithPassword('ada@example.com', 'correct horse battery');
 * const experiences = await api.experiences();
 */
export class AdminApi extends EventTarget {
  readonly organization: string;
  readonly project: string;
  /** The service's base URL, ending in `/v1`. */
  readonly base: string;
  /** The session's CSRF token; memory only, so a page reload asks `me()` for it again. */
  #csrf: string | undefined;

  constructor(session: Session, base = `${location.origin}/v1`) {
    super();
    this.organization = session.organization;
    this.project = session.project;
    this.base = base.replace(/\/+$/, '');
  }

  // Signing in and out

  /** How the organization's people sign in (no credentials needed); 404 `organization_not_found`. */
  signInOptions(signal?: AbortSignal): Promise<SignInOptions> {
    return this.#orgRequest<SignInOptions>('sign-in', { signal, signingIn: true });
  }

  /** 401 `invalid_credentials` for a wrong email or password; 429 `rate_limited` (with `retryAfter`) after many. */
  async signInWithPassword(email: string, password: string): Promise<Me> {
    return this.#remember(await this.#orgRequest<Me>('session', { method: 'POST', body: { email, password }, signingIn: true }));
  }

  /** Opens a session for an admin key, which is sent this once and then forgotten: the cookie carries on. */
  async signInWithKey(key: string): Promise<Me> {
    return this.#remember(await this.#orgRequest<Me>('session', { method: 'POST', body: {}, bearer: key, signingIn: true }));
  }

  /** Who an invitation is for, leaving it unused; 400 `invalid_invitation` for a used, replaced or expired link. */
  lookupInvitation(token: string, signal?: AbortSignal): Promise<InvitationFor> {
    return this.#orgRequest<InvitationFor>('invitations/lookup', { method: 'POST', body: { token }, signal, signingIn: true });
  }

  /** Sets the invited person's password and signs them in; 400 `invalid_invitation` for a used or expired link. */
  async acceptInvitation(token: string, password: string): Promise<Me> {
    return this.#remember(await this.#orgRequest<Me>('invitations/accept', { method: 'POST', body: { token, password }, signingIn: true }));
  }

  /** Who is signed in and what they may do; keeps the session's CSRF token for the writes that follow. */
  async me(signal?: AbortSignal): Promise<Me> {
    return this.#remember(await this.#orgRequest<Me>('me', { signal }));
  }

  /** Ends this browser's session. */
  signOut(): Promise<void> {
    return this.#endSession('session', 'signed-out');
  }

  /** Ends every session of the signed-in person (or key), on every device, this one included. */
  signOutEverywhere(): Promise<void> {
    return this.#endSession('sessions', 'everywhere');
  }

  /** 403 `wrong_password` for a wrong current password; the person's other sessions end. */
  async changePassword(currentPassword: string, password: string): Promise<void> {
    await this.#orgRequest<void>('me/password', { method: 'PUT', body: { currentPassword, password } });
  }

  #remember(me: Me): Me {
    if (me.csrfToken) this.#csrf = me.csrfToken;
    return me;
  }

  async #endSession(path: string, reason: SignedOutDetail['reason']): Promise<void> {
    try {
      await this.#orgRequest<void>(path, { method: 'DELETE', signingIn: true });
    } catch (error) {
      // A 401: the session had ended already, which is what was asked.
      if (!(error instanceof ApiError && error.status === 401)) throw error;
    }
    this.#signedOut({ reason });
  }

  #signedOut(detail: SignedOutDetail): void {
    this.#csrf = undefined;
    this.dispatchEvent(new CustomEvent<SignedOutDetail>(SIGNED_OUT, { detail }));
  }

  // The project's items

  async experiences(signal?: AbortSignal): Promise<Experience[]> {
    return (await this.#request<{ experiences: Experience[] }>('experiences', { signal })).experiences;
  }

  experience(name: string, signal?: AbortSignal): Promise<Experience> {
    return this.#request<Experience>(`experiences/${encodeURIComponent(name)}`, { signal });
  }

  /**
   * Creates or replaces `name`; with `version`, only if it is still at that version; without one, only if no experience
   * of that name exists (else 412 `version_conflict`). `rerandomize`: the running experiment's new phase assigns
   * everybody afresh.
   */
  saveExperience(name: string, item: ExperienceItem, version?: number, options: { rerandomize?: boolean } = {}): Promise<Experience> {
    const query = options.rerandomize ? '?rerandomize=true' : '';
    return this.#request<Experience>(`experiences/${encodeURIComponent(name)}${query}`, {
      method: 'PUT', body: item, ...(version === undefined ? { createOnly: true } : { version }),
    });
  }

  async deleteExperience(name: string, version?: number): Promise<void> {
    await this.#request<void>(`experiences/${encodeURIComponent(name)}`, { method: 'DELETE', version });
  }

  async metrics(signal?: AbortSignal): Promise<Metric[]> {
    return (await this.#request<{ metrics: Metric[] }>('metrics', { signal })).metrics;
  }

  metric(name: string, signal?: AbortSignal): Promise<Metric> {
    return this.#request<Metric>(`metrics/${encodeURIComponent(name)}`, { signal });
  }

  /**
   * Creates or replaces the metric `item.name`; with `version`, only if it is still at that version; without one, only
   * if no metric of that name exists (else 412 `version_conflict`).
   * @example await api.putMetric({ name: 'signup', type: 'binomial', event: 'Signed up' });
   */
  putMetric(item: MetricItem, version?: number): Promise<Metric> {
    return this.#request<Metric>(`metrics/${encodeURIComponent(item.name)}`, {
      method: 'PUT', body: item, ...(version === undefined ? { createOnly: true } : { version }),
    });
  }

  /** Deletes `name` (if still at `version`); 409 `item_in_use` while a ratio metric or an experiment names it. */
  async deleteMetric(name: string, version?: number): Promise<void> {
    await this.#request<void>(`metrics/${encodeURIComponent(name)}`, { method: 'DELETE', version });
  }

  async feeds(signal?: AbortSignal): Promise<FeedRecord[]> {
    return (await this.#request<{ feeds: FeedRecord[] }>('feeds', { signal })).feeds;
  }

  /** Creates or replaces feed `item.id`: with `version`, only if still at it; without, only if there is none (else 412). */
  saveFeed(item: FeedItem, version?: number): Promise<FeedRecord> {
    return this.#request<FeedRecord>(`feeds/${encodeURIComponent(item.id)}`, { method: 'PUT', body: item, ...(version === undefined ? { createOnly: true } : { version }) });
  }

  async deleteFeed(id: number, version?: number): Promise<void> {
    await this.#request<void>(`feeds/${id}`, { method: 'DELETE', version });
  }

  /** What a feed (saved or not) answers for a product and a profile, and why its rules left products out. */
  previewFeed(body: { feed: FeedItem; productId?: string; profileId?: string }, signal?: AbortSignal): Promise<FeedPreviewAnswer> {
    return this.#request<FeedPreviewAnswer>('feeds/preview', { method: 'POST', body, signal });
  }

  /** Catalog products whose id starts with `q` or whose title holds it. */
  async catalog(q: string, signal?: AbortSignal): Promise<FoundProduct[]> {
    return (await this.#request<{ products: FoundProduct[] }>(`catalog?limit=20&q=${encodeURIComponent(q)}`, { signal })).products;
  }

  /** A feed's report (wire/feed-report.ts): its totals and, with `by`, its rows. */
  feedReport(id: number, query: FeedReportQuery, signal?: AbortSignal): Promise<FeedReportAnswer> {
    return this.#request<FeedReportAnswer>(`feeds/${id}/report?${reportQuery(query)}`, { signal });
  }

  /** The address of a feed's report as CSV: a plain GET, which the session cookie authorizes (a download link). */
  feedReportCsv(id: number, query: FeedReportQuery): string {
    return `${this.base}/${this.#projectPath()}/feeds/${id}/report?${reportQuery(query, { format: 'csv' })}`;
  }

  /** The latest `limit` changes, newest first, that match every filter given. */
  async audit(limit: number, filter: AuditFilter = {}, signal?: AbortSignal): Promise<AuditEntry[]> {
    return (await this.#request<{ entries: AuditEntry[] }>(`audit?${auditQuery(limit, filter)}`, { signal })).entries;
  }

  async privacyRequests(kind: 'erasures' | 'exports', signal?: AbortSignal): Promise<PrivacyRequest[]> {
    return (await this.#request<Record<string, PrivacyRequest[]>>(`privacy/${kind}`, { signal }))[kind] ?? [];
  }

  /** Asks for an export of the person's data or their erasure (202: it runs in the background). */
  createPrivacyRequest(kind: 'erasures' | 'exports', subject: PrivacySubject): Promise<PrivacyRequest> {
    const { kind: _named, ...body } = subject;
    return this.#request<PrivacyRequest>(`privacy/${kind}`, { method: 'POST', body });
  }

  /** A done export: its status and the person's rows by kind. */
  exportData(id: string): Promise<Record<string, unknown>> {
    return this.#request<Record<string, unknown>>(`privacy/exports/${encodeURIComponent(id)}`, {});
  }

  async suppressions(signal?: AbortSignal): Promise<Suppression[]> {
    return (await this.#request<{ suppressions: Suppression[] }>('privacy/suppressions', { signal })).suppressions;
  }

  /** An experiment's results; `query` as the results endpoint takes it (`phase`, `metrics`, `dimension`, `series`). */
  results(name: string, signal?: AbortSignal, query: Record<string, string> = {}): Promise<ResultsAnswer> {
    const text = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== '')).toString();
    return this.#request<ResultsAnswer>(`experiences/${encodeURIComponent(name)}/results${text ? `?${text}` : ''}`, { signal });
  }

  /** What an experiment needs to detect a change; `query` as the plan endpoint takes it (`mde`, `metric`, `days`). */
  plan(name: string, query: Record<string, string>, signal?: AbortSignal): Promise<PlanAnswer> {
    return this.#request<PlanAnswer>(`experiences/${encodeURIComponent(name)}/plan?${new URLSearchParams(query)}`, { signal });
  }

  // The organization's people and keys

  /** The organization's keys made through the API (admin role over the whole organization only), without secrets. */
  async keys(signal?: AbortSignal): Promise<AccessKey[]> {
    return (await this.#orgRequest<{ keys: AccessKey[] }>('keys', { signal })).keys;
  }

  /** Creates a key; the answer's `key` is the whole secret, which the service never shows again. */
  createKey(key: NewKey): Promise<CreatedKey> {
    return this.#orgRequest<CreatedKey>('keys', { method: 'POST', body: key });
  }

  /** Revokes a key: anything using it is refused at once (404 `key_not_found` when there is no such key). */
  async revokeKey(id: string): Promise<void> {
    await this.#orgRequest<void>(`keys/${encodeURIComponent(id)}`, { method: 'DELETE' });
  }

  async people(signal?: AbortSignal): Promise<Person[]> {
    return (await this.#orgRequest<{ people: Person[] }>('people', { signal })).people;
  }

  /** Adds the person or changes their role and projects (left out: every project). */
  putPerson(email: string, access: PersonAccess): Promise<Person> {
    return this.#orgRequest<Person>(`people/${encodeURIComponent(email)}`, { method: 'PUT', body: access });
  }

  /** Removes the person (404 `person_not_found` when there is no such person). */
  async removePerson(email: string): Promise<void> {
    await this.#orgRequest<void>(`people/${encodeURIComponent(email)}`, { method: 'DELETE' });
  }

  /**
   * The latest `limit` changes to the organization's people and keys, newest first, that match every filter given
   * (`kind`: `person` or `key`); admins over the whole organization only (else 403 `role_forbidden`).
   */
  async organizationAudit(limit: number, filter: AuditFilter = {}, signal?: AbortSignal): Promise<AccessAuditEntry[]> {
    return (await this.#orgRequest<{ entries: AccessAuditEntry[] }>(`audit?${auditQuery(limit, filter)}`, { signal })).entries;
  }

  /**
   * A link with which the person sets a password, replacing their last one; 404 `person_not_found` before putPerson.
   * The link opens the person's first project, or this one for a person of the whole organization.
   */
  invite(email: string, expiresInHours?: number): Promise<Invitation> {
    const body = expiresInHours === undefined ? {} : { expiresInHours };
    const path = `people/${encodeURIComponent(email)}/invitation?project=${encodeURIComponent(this.project)}`;
    return this.#orgRequest<Invitation>(path, { method: 'POST', body });
  }

  // Transport

  /**
   * A request to a path of the signed-in project, for a page's own calls kept beside it (admin/webhooks-api.ts): the
   * same session, CSRF token, `If-Match` and errors as every method here.
   */
  projectRequest<T>(path: string, options: ProjectRequestOptions = {}): Promise<T> {
    return this.#request<T>(path, options);
  }

  /** A path of the signed-in project (`/{org}/projects/{project}/{path}`). */
  #request<T>(path: string, options: RequestOptions): Promise<T> {
    return this.#send<T>(`${this.#projectPath()}/${path}`, options);
  }

  #projectPath(): string {
    return [this.organization, 'projects', this.project].map(encodeURIComponent).join('/');
  }

  /** A path of the organization itself (`/{org}/{path}`): its people, keys and sessions. */
  #orgRequest<T>(path: string, options: RequestOptions): Promise<T> {
    return this.#send<T>(`${encodeURIComponent(this.organization)}/${path}`, options);
  }

  async #send<T>(path: string, options: RequestOptions, retried = false): Promise<T> {
    try {
      return await this.#fetch<T>(path, options);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (!options.signingIn && error.status === 401 && SESSION_OVER.has(error.code)) this.#signedOut({ reason: 'ended', code: error.code });
      // A token lost or replaced (another tab signed in again): fetch the session's current one and try once more.
      if (error.code === 'csrf_failed' && !retried) {
        await this.me(options.signal);
        return this.#send<T>(path, options, true);
      }
      throw error;
    }
  }

  async #fetch<T>(path: string, { method = 'GET', body, version, createOnly, signal, bearer }: RequestOptions): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (bearer !== undefined) headers.Authorization = `Bearer ${bearer}`;
    if (method !== 'GET' && this.#csrf) headers['X-CSRF-Token'] = this.#csrf;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (version !== undefined) headers['If-Match'] = `"${version}"`;
    if (createOnly) headers['If-None-Match'] = '*';
    let response: Response;
    try {
      // no-store: an admin reads what is current, never a cached list from before their own write. same-origin: the
      // session cookie goes along (the console is served by the service it manages).
      response = await fetch(`${this.base}/${path}`, {
        method, headers, signal, cache: 'no-store', credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      if (signal?.aborted) throw signal.reason;
      throw new ApiError(0, 'network_error', 'The service could not be reached. Check the connection and try again.');
    }
    if (response.status === 204) return undefined as T;
    let answer: unknown;
    try {
      answer = await response.json();
    } catch {
      throw new ApiError(response.status, 'invalid_answer', `The service answered ${response.status} without JSON.`);
    }
    if (!response.ok) {
      const error = (answer as { error?: { code?: unknown; message?: unknown } } | null)?.error;
      throw new ApiError(
        response.status,
        typeof error?.code === 'string' ? error.code : 'http_error',
        typeof error?.message === 'string' ? error.message : `The service answered ${response.status}.`,
        retryAfterSeconds(response.headers.get('Retry-After')),
      );
    }
    return answer as T;
  }
}
