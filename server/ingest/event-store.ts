import type { ServiceEvent } from '../../wire/event.js';
import type { GroupProgram } from '../storage/program.js';
import type { Storage } from '../storage/storage.js';
import type { IngestInput, IngestResult } from './ingest-program.js';

export interface IngestOptions {
  /** The batch's `sentAt` (epoch ms, the sender's clock), stored with each event. */
  sentAt?: number | null;
  /** When the service received the batch (epoch ms); default now. */
  receivedAt?: number;
}

/** Told of each stored batch once committed: its project, its events as sent, and what storing them did. */
export type OnStored = (project: string, events: readonly ServiceEvent[], result: IngestResult) => void;

/**
 * Stores a validated batch durably through `program` (ingestBatchesProgram): each event once per (project, eventId),
 * with when it was received and the batch's `sentAt`, and for the events stored now (not the duplicates) their
 * identity links and what the program hands them on to, in the same transaction. The storage groups the batches that
 * arrive together into one commit.
 * @example const { accepted, duplicates } = await storeBatch(storage, INGEST, 'acme/shop', 'web', events);
 */
export function storeBatch(
  storage: Storage, program: GroupProgram<IngestInput, IngestResult>, project: string, sourceId: string,
  events: ServiceEvent[], options: IngestOptions = {},
): Promise<IngestResult> {
  if (events.length === 0) return Promise.resolve({ accepted: 0, duplicates: 0, identityChanged: false, handedOn: 0 });
  const input: IngestInput = { project, sourceId, events, now: options.receivedAt ?? Date.now(), sentAt: options.sentAt ?? null };
  return storage.group(program, input);
}

/**
 * Where the track endpoint stores batches: storeBatch, and `onStored` told of each once committed.
 * @example const events = new EventStore(storage, INGEST); await events.ingest('acme/shop', 'web', batch, { sentAt });
 */
export class EventStore {
  constructor(
    private readonly storage: Storage,
    private readonly program: GroupProgram<IngestInput, IngestResult>,
    private readonly onStored: OnStored = () => undefined,
  ) {}

  async ingest(project: string, sourceId: string, events: ServiceEvent[], options: IngestOptions = {}): Promise<IngestResult> {
    const result = await storeBatch(this.storage, this.program, project, sourceId, events, options);
    this.onStored(project, events, result);
    return result;
  }
}
