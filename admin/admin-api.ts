// The console's one way to the management API: JSON over fetch with the admin key in the Authorization header (never
// in a URL, where history and access logs would keep it), the service's `{error:{code, message}}` as an ApiError.
import type { ResultsAnswer } from '../wire/results-answer.js';
import type { AuditEntry, Experience, ExperienceItem, Feed } from './experience.js';
import type { Metric, MetricItem } from './metric.js';
import type { AccessKey, CreatedKey, NewKey, Person, PersonAccess, Role } from './access.js';

/** Who is signed in: the project the console manages and the organization's admin key. */
export interface Session {
  organization: string;
  project: string;
  key: string;
}

/** A request the service refused, or that never reached it (`status` 0). */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Whom a privacy request names. */
export type PrivacySubject =
  | { kind: 'userId'; userId: string }
  | { kind: 'email'; email: string }
  | { kind: 'profileId'; profileId: string; sourceId: string };

/** An erasure or export as the service answers it. */
export interface PrivacyRequest {
  id: string;
  kind: 'erasure' | 'export';
  status: 'received' | 'running' | 'done';
  /** After an erasure is done, only the kind of id it named. */
  subject: { kind: PrivacySubject['kind']; value?: string; sourceId?: string };
  counts: Record<string, number>;
  createdAt: string;
  finishedAt: string | null;
}

/** An erased id, refused from then on. */
export interface Suppression {
  kind: 'profile' | 'user' | 'email';
  value: string;
  requestId: string;
  createdAt: string;
}

interface RequestOptions {
  method?: 'GET' | 'PUT' | 'DELETE' | 'POST';
  body?: unknown;
  /** The version the caller read: sent as `If-Match`, so a write over someone else's change is refused (412). */
  version?: number;
  /** Create only (`If-None-Match: *`): an item of the same name already there is refused (412). */
  createOnly?: boolean;
  signal?: AbortSignal;
}

/**
 * The management API of one project, e.g. `new AdminApi({organization: 'acme', project: 'shop', key})`. Every method
 * rejects with an `ApiError`; an abort rejects with the signal's reason.
 */
export class AdminApi {
  readonly organization: string;
  readonly project: string;
  /** The service's base URL, ending in `/v1`. */
  readonly base: string;
  readonly #key: string;

  constructor(session: Session, base = `${location.origin}/v1`) {
    this.organization = session.organization;
    this.project = session.project;
    this.#key = session.key;
    this.base = base.replace(/\/+$/, '');
  }

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

  async feeds(signal?: AbortSignal): Promise<Feed[]> {
    return (await this.#request<{ feeds: Feed[] }>('feeds', { signal })).feeds;
  }

  async audit(limit: number, signal?: AbortSignal): Promise<AuditEntry[]> {
    return (await this.#request<{ entries: AuditEntry[] }>(`audit?limit=${limit}`, { signal })).entries;
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

  results(name: string, signal?: AbortSignal): Promise<ResultsAnswer> {
    return this.#request<ResultsAnswer>(`experiences/${encodeURIComponent(name)}/results`, { signal });
  }

  /** A path of the signed-in project (`/{org}/projects/{project}/{path}`). */
  #request<T>(path: string, options: RequestOptions): Promise<T> {
    const project = [this.organization, 'projects', this.project].map(encodeURIComponent).join('/');
    return this.#send<T>(`${project}/${path}`, options);
  }

  /** A path of the organization itself (`/{org}/{path}`): its people and keys. */
  #orgRequest<T>(path: string, options: RequestOptions): Promise<T> {
    return this.#send<T>(`${encodeURIComponent(this.organization)}/${path}`, options);
  }

  async #send<T>(path: string, { method = 'GET', body, version, createOnly, signal }: RequestOptions): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json', Authorization: `Bearer ${this.#key}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (version !== undefined) headers['If-Match'] = `"${version}"`;
    if (createOnly) headers['If-None-Match'] = '*';
    let response: Response;
    try {
      // no-store: an admin reads what is current, never a cached list from before their own write.
      response = await fetch(`${this.base}/${path}`, {
        method, headers, signal, cache: 'no-store', body: body === undefined ? undefined : JSON.stringify(body),
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
      );
    }
    return answer as T;
  }

  /** Who the signed-in key is and what it may do (any role). */
  me(signal?: AbortSignal): Promise<{ actor: { type: string; id: string; name: string }; role: Role; projects: string[] | null }> {
    return this.#orgRequest('me', { signal });
  }

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
}
