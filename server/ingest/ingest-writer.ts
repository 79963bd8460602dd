// Ingestion's writer thread entry (built to dist/ingest-writer.mjs): stores track batches on the thread's own
// connection to the service's SQLite file, each turn's batches in one synced commit
// (server/storage/sqlite/writer-thread-server.ts, started with synchronous=FULL by event-store.ts), and applies the
// recommendation models' inbox in chunks between them.
import { serveWriterThread } from '../storage/sqlite/writer-thread-server.js';
import { applyModelInbox } from '../recommendations/model-inbox.js';
import { ingestProgram, type IngestInput } from './ingest-program.js';

serveWriterThread({
  ingest: (input: IngestInput) => ingestProgram([input], 'sqlite'),
  applyModels: (maxEvents: number) => applyModelInbox('sqlite', maxEvents),
});
