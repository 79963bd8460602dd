// The Choose API's exposure writer thread (see worker-exposure-sink.ts): owns a second SQLite connection to the
// service's database file and inserts the batches the main thread posts, so neither the inserts nor their
// commits run on the event loop that answers requests.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { ExposureRow } from '../storage/storage.js';

/** Main → worker. */
export type ExposureWorkerRequest = { id: number; rows: ExposureRow[] } | { id: number; close: true };
/** Worker → main: `error` set when the batch was not stored (the main thread keeps and retries it). */
export interface ExposureWorkerReply {
  id: number;
  error?: string;
}

export interface ExposureWorkerData {
  file: string;
}

const port = parentPort;
if (!port) throw new Error('exposure-worker.ts runs as a worker thread');
const { file } = workerData as ExposureWorkerData;

const db = new Database(file);
// WAL lets this connection write while the main connection reads (readers never wait for a writer). Writers
// still take turns: both connections wait up to busy_timeout for each other's (short) transactions.
db.pragma('journal_mode = WAL');
db.pragma('busy_timeout = 5000');
// NORMAL for THIS connection only: in WAL mode a commit is then not fsync'd by itself; it reaches the disk at
// the next checkpoint or with the next FULL commit of the main connection (which syncs the whole WAL). A power
// loss may take the last exposures committed here — they were already at risk while buffered in memory before
// a flush, and exposures are reporting data that no answer depends on. Acknowledged events, assignments and
// identity links are written by the main connection, which stays synchronous=FULL.
db.pragma('synchronous = NORMAL');

const insert = db.prepare(
  'INSERT INTO exposures (project, profile_id, experience, variation, session_id, device, ts) VALUES (?, ?, ?, ?, ?, ?, ?)',
);
// One prepared single-row statement looped inside one transaction: SQLite does no per-row parsing then, and
// the batch is one commit.
const insertAll = db.transaction((rows: readonly ExposureRow[], now: number) => {
  for (const r of rows) insert.run(r.project, r.profileId, r.experience, r.variation, r.sessionId ?? null, r.device ?? null, r.time ?? now);
});

port.on('message', (message: ExposureWorkerRequest) => {
  if ('close' in message) {
    db.close();
    port.postMessage({ id: message.id } satisfies ExposureWorkerReply);
    port.close();
    return;
  }
  try {
    insertAll.immediate(message.rows, Date.now());
    port.postMessage({ id: message.id } satisfies ExposureWorkerReply);
  } catch (error) {
    port.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) } satisfies ExposureWorkerReply);
  }
});
