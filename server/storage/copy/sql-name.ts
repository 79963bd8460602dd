/** A table or column name as a quoted SQL identifier (the names come from the databases' own catalogs). */
export function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
