import type { ServiceEvent } from '../../src/event.js';
import type { Storage } from '../storage/storage.js';
import { ingestProgram, type IngestResult } from './ingest-program.js';

export interface IngestOptions {
  /** The batch's `sentAt` (epoch ms, the sender's clock), stored with each event. */
  sentAt?: number | null;
  /** When the service received the batch (epoch ms); default now. */
  receivedAt?: number;
}

/**
 * Stores a validated batch in one durable transaction: each event once per (project, eventId), with when it was
 * received and the batch's `sentAt`, and for the events stored now (not the duplicates) the identity links, attributes and model updates they carry. On SQLite the
 * batches of one turn of the event loop share a commit and each event is inserted alone; PostgreSQL takes the batch
 * in one statement (one round trip).
 * @example const { accepted, duplicates } = await ingestBatch(storage, 'acme/shop', 'web', events);
 */
export function ingestBatch(
  storage: Storage, project: string, sourceId: string, events: ServiceEvent[], options: IngestOptions = {},
): Promise<IngestResult> {
  if (events.length === 0) return Promise.resolve({ accepted: 0, duplicates: 0, identityChanged: false });
  const now = options.receivedAt ?? Date.now();
  const sentAt = options.sentAt ?? null;
  const rowWise = storage.dialect === 'sqlite';
  return storage.transaction(() => ingestProgram(project, sourceId, events, now, rowWise, sentAt), { rows: events.length });
}
