// A helper script of this folder run as a child process (under tsx, with an IPC channel): for tests that kill a
// service process or run two of them.
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface HelperChild<M> {
  child: ChildProcess;
  /** The first message the child sends (what it reports once ready, or what it did before it was killed). */
  firstMessage: Promise<M>;
  /** The signal that ended the child (null when it exited by itself). */
  exited: Promise<NodeJS.Signals | null>;
}

/**
 * Forks `helpers/<script>` with `args`; its stderr and stdout go to the test's.
 * @example const { firstMessage, exited } = forkHelper<{ accepted: number }>('ingest-then-crash.ts', [file, '100']);
 */
export function forkHelper<M>(script: string, args: string[]): HelperChild<M> {
  const child = fork(join(import.meta.dirname, script), args, {
    execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const firstMessage = new Promise<M>((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (m) => resolve(m as M));
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  return { child, firstMessage, exited };
}
