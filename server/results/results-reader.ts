// The results' reader thread entry (built to dist/results-reader.mjs): runs experiment results on the thread's own
// read-only connection to the service's SQLite file (server/storage/sqlite/reader-thread-server.ts).
import { serveReaderThread } from '../storage/sqlite/reader-thread-server.js';
import { experimentResultsProgram } from './experiment-results.js';

serveReaderThread({ results: experimentResultsProgram });
