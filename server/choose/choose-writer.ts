// The Choose API's writer thread entry (built to dist/choose-writer.mjs): serves its programs on the thread's own
// connection to the service's database (server/storage/sqlite/writer-thread-server.ts).
import { serveWriterThread } from '../storage/sqlite/writer-thread-server.js';
import { CHOOSE_WRITER_PROGRAMS } from './writer-programs.js';

serveWriterThread(CHOOSE_WRITER_PROGRAMS);
