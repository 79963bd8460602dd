import type { FastifyBaseLogger } from 'fastify';
import type { ServiceEvent } from '../../src/event.js';
import { ModelApplier } from '../recommendations/model-applier.js';
import { applyModelInbox, modelInboxWaiting, type AppliedChunk } from '../recommendations/model-inbox.js';
import { SqliteWriterThread, threadEntry, threadFile } from '../storage/sqlite/writer-thread.js';
import type { Storage } from '../storage/storage.js';
import { ingestProgram, type IngestInput, type IngestResult } from './ingest-program.js';

export interface IngestOptions {
  /** The batch's `sentAt` (epoch ms, the sender's clock), stored with each event. */
  sentAt?: number | null;
  /** When the service received the batch (epoch ms); default now. */
  receivedAt?: number;
}

/** Most events one PostgreSQL group transaction takes; the rest wait for the next. */
const GROUP_EVENTS = 5000;

// Two at a time: one group's statements run while the other commits, on a machine's two or more cores; a third only
// queues on the same rows (measured in the ingestion bench).
const GROUPS_IN_FLIGHT = 2;

interface Waiting {
  input: IngestInput;
  resolve: (result: IngestResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit on PostgreSQL: the batches that arrive while a transaction is running are stored together by the next
 * one — one INSERT for all their events, one for their inbox rows, one commit — instead of a transaction each, so
 * that each commit and round trip is paid once per group. Each batch is answered when its group has committed. If a
 * group's transaction fails, each of its batches is stored alone, so that what failed it fails only the batch that
 * caused it.
 */
class PostgresIngestGroups {
  #waiting: Waiting[] = [];
  #running = 0;

  constructor(private readonly storage: Storage) {}

  add(input: IngestInput): Promise<IngestResult> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ input, resolve, reject });
      if (this.#running < GROUPS_IN_FLIGHT) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running++;
    try {
      while (this.#waiting.length > 0) {
        let events = 0;
        let take = 0;
        while (take < this.#waiting.length && (take === 0 || events + this.#waiting[take]!.input.events.length <= GROUP_EVENTS)) {
          events += this.#waiting[take]!.input.events.length;
          take++;
        }
        const group = this.#waiting.splice(0, take);
        await this.#commit(group, events);
      }
    } finally {
      this.#running--;
    }
  }

  async #commit(group: Waiting[], events: number): Promise<void> {
    try {
      const results = await this.storage.transaction(() => ingestProgram(group.map((w) => w.input), 'postgres'), { rows: events });
      group.forEach((w, i) => w.resolve(results[i]!));
      return;
    } catch (error) {
      if (group.length === 1) {
        group[0]!.reject(error);
        return;
      }
    }
    for (const w of group) {
      try {
        const [result] = await this.storage.transaction(() => ingestProgram([w.input], 'postgres'), { rows: w.input.events.length });
        w.resolve(result!);
      } catch (error) {
        w.reject(error);
      }
    }
  }
}

const groups = new WeakMap<Storage, PostgresIngestGroups>();

function ingestInput(project: string, sourceId: string, events: ServiceEvent[], options: IngestOptions): IngestInput {
  return { project, sourceId, events, now: options.receivedAt ?? Date.now(), sentAt: options.sentAt ?? null };
}

/**
 * Stores a validated batch durably: each event once per (project, eventId), with when it was received and the batch's
 * `sentAt`, and for the events stored now (not the duplicates) the identity links, attributes and model-inbox rows they
 * carry, in the same transaction. On SQLite the batches of one turn of the event loop share a commit (the storage's
 * group commit) and each event is inserted alone; on PostgreSQL the batches that arrive while a transaction runs
 * share the next one, their events in one statement. The models count the batch once an applier has run (EventStore's,
 * or applyModelsNow).
 * @example const { accepted, duplicates } = await ingestBatch(storage, 'acme/shop', 'web', events);
 */
export function ingestBatch(
  storage: Storage, project: string, sourceId: string, events: ServiceEvent[], options: IngestOptions = {},
): Promise<IngestResult> {
  if (events.length === 0) return Promise.resolve({ accepted: 0, duplicates: 0, identityChanged: false, modelEvents: 0 });
  const input = ingestInput(project, sourceId, events, options);
  if (storage.dialect === 'sqlite') {
    return storage.transaction(() => ingestProgram([input], 'sqlite'), { rows: events.length }).then(([result]) => result!);
  }
  let grouped = groups.get(storage);
  if (grouped === undefined) groups.set(storage, (grouped = new PostgresIngestGroups(storage)));
  return grouped.add(input);
}

const WRITER_ENTRY = threadEntry(import.meta.url, 'ingest-writer');

/**
 * Where the track endpoint stores batches, and what keeps the recommendation models caught up with them (`models`).
 * On a SQLite file, a writer thread with its own connection stores them, each turn's batches in one commit synced
 * before they are answered (as durable as the main connection's), and applies the models' inbox between them: the
 * event loop goes on parsing and validating the next requests meanwhile, and neither the fsync nor the model upkeep
 * ever holds it. If the thread cannot run, and on PostgreSQL or an in-memory database, `ingestBatch` stores them and
 * the storage's own transactions apply the inbox.
 * @example const events = new EventStore(storage); await events.ingest('acme/shop', 'web', batch, { sentAt });
 */
export class EventStore {
  private readonly thread: SqliteWriterThread | null;
  /** Applies the models' inbox; feed reads settle it first. */
  readonly models: ModelApplier;

  constructor(private readonly storage: Storage, options: { logger?: Pick<FastifyBaseLogger, 'warn'> } = {}) {
    const file = threadFile(storage);
    this.thread = file === null ? null : new SqliteWriterThread(file, WRITER_ENTRY, 'FULL');
    this.models = new ModelApplier({
      applyChunk: (maxEvents) => this.applyChunk(maxEvents), waiting: () => storage.run(modelInboxWaiting), ...options,
    });
  }

  async ingest(project: string, sourceId: string, events: ServiceEvent[], options: IngestOptions = {}): Promise<IngestResult> {
    const result = await this.store(project, sourceId, events, options);
    if (result.modelEvents > 0) {
      this.models.added(result.modelEvents, project, new Set(events.filter((e) => e.type === 'product').map((e) => e.profileId)));
    }
    return result;
  }

  /** Applies what the models' inbox holds, ends its polling, then ends the writer thread after what it was sent. */
  async close(): Promise<void> {
    await this.models.close();
    await this.thread?.close();
  }

  private store(project: string, sourceId: string, events: ServiceEvent[], options: IngestOptions): Promise<IngestResult> {
    const thread = this.thread;
    if (thread === null || thread.failed || events.length === 0) return ingestBatch(this.storage, project, sourceId, events, options);
    return thread.run<IngestResult[]>('ingest', [ingestInput(project, sourceId, events, options)]).then(([result]) => result!, (error: unknown) => {
      // The thread died under this request: stored here instead (what it may have committed counts as duplicates).
      if (thread.failed) return ingestBatch(this.storage, project, sourceId, events, options);
      throw error;
    });
  }

  private applyChunk(maxEvents: number): Promise<AppliedChunk> {
    const thread = this.thread;
    if (thread !== null && !thread.failed) return thread.run<AppliedChunk>('applyModels', [maxEvents]);
    return this.storage.transaction(() => applyModelInbox(this.storage.dialect, maxEvents));
  }
}
