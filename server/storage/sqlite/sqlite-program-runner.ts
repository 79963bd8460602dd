import type Database from 'better-sqlite3';
import type { RowsInsert, SqlProgram, SqlResult } from '../sql-program.js';

/**
 * Runs storage programs (sql-program.ts) on one better-sqlite3 connection, synchronously, with its prepared
 * statements cached by SQL text. The storage's main connection and the Choose API's writer thread each have one,
 * so both run the same programs (the same SQL) on their own connection.
 * @example new SqliteProgramRunner(db).drive(assignmentReadProgram(inputs));
 */
export class SqliteProgramRunner {
  private readonly statements = new Map<string, Database.Statement>();
  /** Statements whose rows come back as arrays (valuesOp), prepared apart: `raw` is a mode of the statement. */
  private readonly valueStatements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  statement(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      // Multi-row inserts differ per batch size; the cache stays bounded.
      if (this.statements.size > 1000) this.statements.clear();
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  private valueStatement(sql: string): Database.Statement {
    let stmt = this.valueStatements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql).raw(true);
      if (this.valueStatements.size > 100) this.valueStatements.clear();
      this.valueStatements.set(sql, stmt);
    }
    return stmt;
  }

  /** Runs `program` to its end on the connection as it is (inside a transaction only if the caller opened one). */
  drive<T>(program: SqlProgram<T>): T {
    let step = program.next();
    while (!step.done) {
      const { params, values, rows, locks, notify, index } = step.value;
      const sql = index === undefined ? step.value.sql : step.value.sql.replace(`FROM ${index.table} `, `FROM ${index.table} INDEXED BY ${index.name} `);
      let result: SqlResult;
      if (rows !== undefined) {
        step = program.next(this.insertRows(sql, rows));
        continue;
      }
      // One writer at a time already, and nobody to notify: nothing to do. (A read's `lockRows` is a plain read.)
      if (locks !== undefined || notify !== undefined) {
        step = program.next({ changes: 0, rows: [] });
        continue;
      }
      if (values) {
        result = { changes: 0, rows: [], values: this.valueStatement(sql).all(...params) as unknown[][] };
        step = program.next(result);
        continue;
      }
      const stmt = this.statement(sql);
      if (stmt.reader) {
        result = { changes: 0, rows: stmt.all(...params) as Record<string, unknown>[] };
      } else {
        result = { changes: stmt.run(...params).changes, rows: [] };
      }
      step = program.next(result);
    }
    return step.value;
  }

  /** insertRows: one prepared single-row statement per row; a row was inserted when it changed one. */
  private insertRows(head: string, { values, conflict, key }: RowsInsert): SqlResult {
    if (values.length === 0) return { changes: 0, rows: [], ...(key ? { inserted: [] } : {}) };
    const stmt = this.statement(`${head} VALUES (${values[0]!.map(() => '?').join(', ')}) ${conflict}`);
    const inserted: boolean[] = [];
    let changes = 0;
    for (const row of values) {
      const changed = stmt.run(...row).changes;
      changes += changed;
      inserted.push(changed === 1);
    }
    return { changes, rows: [], ...(key ? { inserted } : {}) };
  }
}
