// The entry of every SQLite thread (built to dist/sqlite-thread.mjs): a writer or a reader, on its own connection to
// the service's database file, serving by name the programs of the table whose module the storage was given
// (Storage.hostPrograms): the domains' programs, listed by the composition root.
import { workerData } from 'node:worker_threads';
import type { ProgramTable } from '../program.js';
import { serveReaderThread } from './reader-thread-server.js';
import { serveWriterThread, type ThreadPrograms, type ProgramThreadData } from './writer-thread-server.js';

const data = workerData as ProgramThreadData;
const { PROGRAMS } = (await import(data.programs)) as { PROGRAMS: ProgramTable };
const programs: ThreadPrograms = Object.fromEntries([...PROGRAMS].map(([name, program]) => [name, program.make]));
if (data.kind === 'reader') serveReaderThread(programs);
else serveWriterThread(programs);
