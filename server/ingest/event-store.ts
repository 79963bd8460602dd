import type { ServiceEvent } from '../../src/event.js';
import type { Storage } from '../storage/storage.js';
import { ingestProgram, type IngestResult } from './ingest-program.js';

/**
 * Stores a validated batch in one durable transaction: each event once per (project, eventId), and for the events
 * stored now (not the duplicates) the identity links, attributes and model updates they carry. On SQLite the
 * batches of one turn of the event loop share a commit and each event is inserted alone; PostgreSQL takes the batch
 * in one statement (one round trip).
 * @example const { accepted, duplicates } = await ingestBatch(storage, 'acme/shop', 'web', events);
 */
export function ingestBatch(storage: Storage, project: string, sourceId: string, events: ServiceEvent[]): Promise<IngestResult> {
  if (events.length === 0) return Promise.resolve({ accepted: 0, duplicates: 0, identityChanged: false });
  const now = Date.now();
  const rowWise = storage.dialect === 'sqlite';
  return storage.transaction(() => ingestProgram(project, sourceId, events, now, rowWise), { rows: events.length });
}
