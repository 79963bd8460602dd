// The audit endpoints' query (the project's log and the organization's): a limit and the filters that are set.

/** The audit log's filters, each optional, combined with AND. Dates are `YYYY-MM-DD`; `until` takes its whole day. */
export interface AuditFilter {
  /** A person's or key's actor id. */
  actor?: string;
  kind?: string;
  name?: string;
  since?: string;
  until?: string;
}

/** An audit endpoint's query: the limit and the filters that are set. */
export function auditQuery(limit: number, filter: AuditFilter): URLSearchParams {
  const query = new URLSearchParams({ limit: String(limit) });
  for (const [name, value] of Object.entries(filter)) if (value) query.set(name, value);
  return query;
}
