import { PolledQueue } from '../jobs/polled-queue.js';
import { APPLY_MODELS, CHUNK_EVENTS } from '../recommendations/model-inbox.js';
import { basketsOf, readBaskets, removeModelContributions } from '../recommendations/model-contributions.js';
import { op, type SqlProgram } from '../storage/sql-program.js';
import type { Storage } from '../storage/storage.js';
import { num } from '../storage/sql-values.js';
import { inList, resolvePerson, type Person } from './person.js';
import { erasePersonTables, eventChunk, exportRow, exposureChunk, readPersonTables, type Chunk, type ExportRow } from './person-rows.js';
import { claimRequest, clearExportsOf, requestDue, finishRequest, saveProgress, type PrivacyRequest } from './privacy-requests.js';
import { erasureLock, suppress } from './suppressions.js';
import { consolePath, emitWebhookEvent, type WebhookEvent } from '../webhooks/webhook-outbox.js';

export interface PrivacyRunnerOptions {
  storage: Storage;
  now?: () => number;
  /** How long a node holds a request between chunks before another may take it over (default 30 s). */
  leaseMs?: number;
  /** How often a node looks for requests to run (default 1 s); a request made on this node runs at once (`kick`). */
  pollMs?: number;
  /** The person's ids were added to the suppression list: this node's copy and caches learn them. */
  onSuppressed?: () => Promise<void>;
  logger?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** Tests: called after each committed chunk of an erasure; a throw stops the run there, as a crash would. */
  afterChunk?: (request: PrivacyRequest) => void;
}

/**
 * Runs privacy requests, on every node: each takes the oldest request whose lease lapsed and runs it step by step,
 * each chunk of work committed together with the request's progress, so that a run that dies (a crash, a restart)
 * leaves the request where its last chunk left it, and the next node to take it (after the lease) goes on from there.
 *
 * An erasure: `resolve` finds every id of the person and adds them to the suppression list (from that commit on,
 * nothing of theirs is stored); `drain` waits until the recommendation models have counted every event stored before
 * (so that what is taken out of them below was put in); `events` walks the events in chunks, taking each of the
 * person's events out of the models and deleting it; `exposures` likewise; `tables` removes the rest (identity links,
 * assignments, attributes, recently viewed; consent records keep their proof without the ids) and clears the person's
 * earlier exports; then the request forgets whom it was about. An export reads the same rows in one run.
 * @example const runner = new PrivacyRunner({ storage }); runner.start(); runner.kick();
 */
export class PrivacyRunner {
  readonly #storage: Storage;
  readonly #now: () => number;
  readonly #leaseMs: number;
  readonly #queue = new PolledQueue(() => this.#runAll());

  constructor(private readonly options: PrivacyRunnerOptions) {
    this.#storage = options.storage;
    this.#now = options.now ?? Date.now;
    this.#leaseMs = options.leaseMs ?? 30_000;
  }

  start(): void {
    this.#queue.start(this.options.pollMs ?? 1000);
  }

  /** Looks for requests to run now (after a request was made on this node). Resolves when none is left. */
  kick(): Promise<void> {
    return this.#queue.kick();
  }

  /**
   * Stops taking requests; a request running stops after its current chunk (another node, or the next start, resumes
   * it).
   */
  close(): Promise<void> {
    return this.#queue.close();
  }

  async #runAll(): Promise<void> {
    while (!this.#queue.closed) {
      let request: PrivacyRequest | null;
      try {
        const now = this.#now();
        // Looked at first by a read: on SQLite a transaction takes the file's write lock on the connection of the
        // event loop, which waits there (answering nothing) while a bulk writer holds the lock.
        request = (await this.#storage.run(() => requestDue(now))) ? await this.#storage.transaction(() => claimRequest(now, now + this.#leaseMs)) : null;
      } catch (error) {
        this.options.logger?.warn({ error: String(error) }, 'cannot read privacy requests');
        return;
      }
      if (request === null) return;
      try {
        if (request.kind === 'erasure') await this.#erase(request);
        else await this.#export(request);
      } catch (error) {
        // Left leased: taken again (here or on another node) once the lease lapses, from its last committed chunk.
        this.options.logger?.warn({ error: String(error), request: request.id }, 'privacy request stopped; it resumes after its lease');
        return;
      }
    }
  }

  /** The time now and the lease a chunk committed now renews to. */
  #lease(): [now: number, until: number] {
    const now = this.#now();
    return [now, now + this.#leaseMs];
  }

  /** One chunk of work and the request's progress in one transaction. */
  async #commit(request: PrivacyRequest, work: () => SqlProgram<void>): Promise<void> {
    if (this.#queue.closed) throw new Error('closing');
    await this.#storage.transaction(work);
    this.options.afterChunk?.(request);
  }

  async #erase(request: PrivacyRequest): Promise<void> {
    const project = request.project;
    if (request.step === 'resolve') {
      const [now, until] = this.#lease();
      await this.#commit(request, function* () {
        // Alone: the batches being stored commit first, and those that begin meanwhile read the list with these ids.
        yield erasureLock([project], 'alone');
        const person = yield* resolvePerson(project, request.subject!);
        yield* suppress(project, request.id, 'profile', person.profiles, now);
        yield* suppress(project, request.id, 'user', person.users, now);
        yield* suppress(project, request.id, 'email', person.emails, now);
        // The models' inbox as it stands now: no later row can hold the person's events.
        const { rows } = yield op('SELECT COALESCE(MAX(id), 0) AS id FROM model_inbox');
        yield* saveProgress(request, { step: 'drain', cursor: String(num(rows[0]?.id)), counts: {}, person }, now, until);
      });
      await this.options.onSuppressed?.();
    }
    if (request.step === 'drain') {
      const upTo = Number(request.cursor);
      for (;;) {
        const waiting = await this.#storage.run(function* () {
          const { rows } = yield op('SELECT COUNT(*) AS n FROM model_inbox WHERE id <= ?', upTo);
          return num(rows[0]?.n);
        });
        if (waiting === 0) break;
        // Applied here or by any node's applier: either way each row counts once (it is deleted as it is applied).
        const applied = await this.#storage.place(APPLY_MODELS, CHUNK_EVENTS);
        if (applied.events === 0) await new Promise((resolve) => setTimeout(resolve, 50));
        if (this.#queue.closed) throw new Error('closing');
      }
      const [now, until] = this.#lease();
      await this.#commit(request, () => saveProgress(request, { step: 'events', cursor: '', counts: request.counts }, now, until));
    }
    const person = request.person!;
    while (request.step === 'events') {
      const [now, until] = this.#lease();
      await this.#commit(request, function* () {
        const { rows, next } = yield* eventChunk(project, person, request.cursor ?? '');
        const counts = { ...request.counts };
        if (rows.length > 0) {
          counts.baskets = (counts.baskets ?? 0) + (yield* removeModelContributions(project, rows));
          const ids = rows.map((r) => String(r.event_id));
          for (let i = 0; i < ids.length; i += 400) {
            const chunk = ids.slice(i, i + 400);
            yield op(`DELETE FROM events WHERE project = ? AND event_id IN ${inList(chunk.length)}`, project, ...chunk);
          }
          counts.events = (counts.events ?? 0) + rows.length;
        }
        const step = next === null ? { step: 'exposures' as const, cursor: '0', counts } : { step: 'events' as const, cursor: next, counts };
        yield* saveProgress(request, step, now, until);
      });
    }
    while (request.step === 'exposures') {
      const [now, until] = this.#lease();
      await this.#commit(request, function* () {
        const { rows, next } = yield* exposureChunk(project, person, Number(request.cursor ?? '0'));
        const counts = { ...request.counts };
        if (rows.length > 0) {
          const ids = rows.map((r) => num(r.id));
          yield op(`DELETE FROM exposures WHERE id IN ${inList(ids.length)}`, ...ids);
          counts.exposures = (counts.exposures ?? 0) + rows.length;
        }
        const step = next === null ? { step: 'tables' as const, cursor: null, counts } : { step: 'exposures' as const, cursor: next, counts };
        yield* saveProgress(request, step, now, until);
      });
    }
    if (request.step === 'tables') {
      const [now] = this.#lease();
      await this.#commit(request, function* () {
        const counts: Record<string, number> = { events: 0, exposures: 0, baskets: 0, ...request.counts };
        Object.assign(counts, yield* erasePersonTables(project, person, request.id));
        const exports = yield* clearExportsOf(project, person);
        if (exports > 0) counts.exports = exports;
        request.counts = counts;
        yield* finishRequest(request, now, null);
        yield* emitWebhookEvent(requestDone(request, now));
      });
      this.options.logger?.info({ request: request.id, counts: request.counts }, 'erasure done');
    }
  }

  /** An export: the same rows an erasure removes, read (in chunks, outside any transaction) and kept as its result. */
  async #export(request: PrivacyRequest): Promise<void> {
    const project = request.project;
    const person = await this.#storage.run(() => resolvePerson(project, request.subject!));
    const data: Record<string, ExportRow[]> = { events: [], exposures: [], baskets: [] };
    const events: Record<string, unknown>[] = [];
    for (let after: string | null = ''; after !== null;) {
      const from: string = after;
      const chunk: Chunk = await this.#storage.run(() => eventChunk(project, person, from));
      events.push(...chunk.rows);
      after = chunk.next;
    }
    for (let after: string | null = '0'; after !== null;) {
      const from: number = Number(after);
      const chunk: Chunk = await this.#storage.run(() => exposureChunk(project, person, from));
      data.exposures!.push(...chunk.rows.map(exportRow));
      after = chunk.next;
    }
    data.events = events.map(exportRow);
    data.baskets = (await this.#storage.run(() => readBaskets(project, basketsOf(events)))).map(exportRow);
    Object.assign(data, await this.#storage.run(() => readPersonTables(project, person)));
    const counts: Record<string, number> = {};
    for (const [key, rows] of Object.entries(data)) counts[key] = rows.length;
    request.counts = counts;
    const result = { profiles: profilesOf(person, data), ...data };
    const [now, until] = this.#lease();
    await this.#storage.transaction(function* () {
      yield* saveProgress(request, { step: 'collect', cursor: null, counts, person }, now, until);
      yield* finishRequest(request, now, result);
      yield* emitWebhookEvent(requestDone(request, now));
    });
  }
}

/** What a request done tells the project's webhooks, in the transaction that marks it done: never whom it was about. */
function requestDone(request: PrivacyRequest, at: number): WebhookEvent<'privacy.request_done'> {
  return {
    project: request.project, type: 'privacy.request_done', at, path: consolePath(request.project, '#/privacy'),
    data: { request: request.id, kind: request.kind, status: 'done', counts: request.counts },
  };
}

/** The export's `profiles`: each profile id of the person with the user ids linked to it. */
function profilesOf(person: Person, data: Record<string, ExportRow[]>): { profileId: string; userIds: string[] }[] {
  return person.profiles.map((profileId) => {
    const users = new Set<string>();
    for (const link of data.personLinks ?? []) {
      if (link.profileId !== profileId) continue;
      users.add(String(link.userId));
      if (link.otherUserId !== '') users.add(String(link.otherUserId));
    }
    return { profileId, userIds: [...users].sort() };
  });
}
