import type { GroupProgram } from '../program.js';
import type { Storage } from '../storage.js';

/** Most rows one group transaction takes; the rest wait for the next. */
const GROUP_ROWS = 5000;

// Two at a time: one group's statements run while the other commits, on a machine's two or more cores; a third only
// queues on the same rows (measured in the ingestion bench).
const GROUPS_IN_FLIGHT = 2;

interface Waiting<I, R> {
  input: I;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit on PostgreSQL for one group program: the inputs that arrive while a transaction is running are stored
 * together by the next one (the program takes them all at once: one INSERT for all their rows, one commit) instead
 * of a transaction each, so that each commit and round trip is paid once per group. Each input is answered when its
 * group has committed. If a group's transaction fails, each of its inputs is stored alone, so that what failed it
 * fails only the input that caused it.
 */
export class PostgresGroups<I, R> {
  #waiting: Waiting<I, R>[] = [];
  #running = 0;

  constructor(private readonly storage: Pick<Storage, 'transaction'>, private readonly program: GroupProgram<I, R>) {}

  add(input: I): Promise<R> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ input, resolve, reject });
      if (this.#running < GROUPS_IN_FLIGHT) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running++;
    try {
      while (this.#waiting.length > 0) {
        let rows = 0;
        let take = 0;
        while (take < this.#waiting.length) {
          const size = this.program.rows(this.#waiting[take]!.input);
          if (take > 0 && rows + size > GROUP_ROWS) break;
          rows += size;
          take++;
        }
        await this.#commit(this.#waiting.splice(0, take), rows);
      }
    } finally {
      this.#running--;
    }
  }

  async #commit(group: Waiting<I, R>[], rows: number): Promise<void> {
    try {
      const results = await this.storage.transaction(() => this.program.make(group.map((w) => w.input)), { rows });
      group.forEach((w, i) => w.resolve(results[i]!));
      return;
    } catch (error) {
      if (group.length === 1) {
        group[0]!.reject(error);
        return;
      }
    }
    for (const w of group) {
      try {
        const [result] = await this.storage.transaction(() => this.program.make([w.input]), { rows: this.program.rows(w.input) });
        w.resolve(result!);
      } catch (error) {
        w.reject(error);
      }
    }
  }
}
