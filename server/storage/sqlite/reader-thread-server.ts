// The worker side of a SQLite reader thread: the thread entry (sqlite-thread.ts) calls serveReaderThread with the
// programs it may be asked to run, by name. The thread owns a read-only connection to the service's database file and
// runs each request in a read transaction of its own, one after the other: in WAL mode a read holds no lock a writer
// waits for, and a long read (experiment results) runs off the event loop that answers requests. The main thread's side
// is the same as a writer thread's (program-thread.ts), and so are the messages.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteProgramRunner } from './sqlite-program-runner.js';
import type { ThreadPrograms, ThreadReply, ThreadRequest, ProgramThreadData } from './writer-thread-server.js';

/**
 * Serves the main thread's read requests until it asks to close.
 * @example serveReaderThread({ 'results.experiment': (project: string, name: string) => resultsProgram(project, name) });
 */
export function serveReaderThread(programs: ThreadPrograms): void {
  const port = parentPort;
  if (!port) throw new Error('serveReaderThread runs in a worker thread');
  const { file } = workerData as ProgramThreadData;
  const db = new Database(file, { readonly: true });
  db.pragma('busy_timeout = 5000');
  // Read-only, so it deletes nothing; on all the same, so that no connection to the file is the exception.
  db.pragma('secure_delete = ON');
  // The pages of a large read stay cached between requests (an upper bound, not an allocation).
  db.pragma('cache_size = -65536');
  const runner = new SqliteProgramRunner(db);

  port.on('message', (message: ThreadRequest) => {
    if ('close' in message) {
      db.close();
      port.postMessage({ id: message.id } satisfies ThreadReply);
      port.close();
      return;
    }
    let reply: ThreadReply;
    if (message.program === '') {
      port.postMessage({ id: message.id } satisfies ThreadReply);
      return;
    }
    try {
      const make = programs[message.program];
      if (make === undefined) throw new Error(`no reader program named ${message.program}`);
      // One read transaction: every statement of the program sees the same committed state (writers go on: WAL).
      reply = { id: message.id, value: db.transaction(() => runner.drive(make(...message.args)))() };
    } catch (error) {
      reply = { id: message.id, error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  });
}
