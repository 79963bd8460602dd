import { createHash, type Hash } from 'node:crypto';
import { canonical, type Column } from './column-values.js';

/** A table's rows counted and hashed in its primary key's order, each value in its canonical form (column-values.ts). */
export interface TableSummary {
  rows: number;
  /** SHA-256 (hex) over one JSON line per row. */
  checksum: string;
}

/**
 * Counts and hashes rows as they are read, so a table of any size is summed in batches.
 * @example const sum = new TableChecksum(columns); for (const row of rows) sum.add(row); sum.summary();
 */
export class TableChecksum {
  private readonly hash: Hash = createHash('sha256');
  private rows = 0;

  constructor(private readonly columns: readonly Column[]) {}

  /** One row, its values in the order of `columns`. */
  add(row: readonly unknown[]): void {
    this.hash.update(`${JSON.stringify(this.columns.map((column, i) => canonical(row[i], column.kind)))}\n`);
    this.rows++;
  }

  summary(): TableSummary {
    return { rows: this.rows, checksum: this.hash.copy().digest('hex') };
  }
}
