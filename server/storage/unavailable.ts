// Whether an error means the database cannot be reached or cannot take writes now (a state that passes), as opposed
// to a failure of the request itself: the service answers those 503 `storage_unavailable` with a Retry-After.

// PostgreSQL SQLSTATE classes and codes: 08 connection exception, 53 insufficient resources (too many connections,
// disk full), 57P01–57P03 shutting down or starting up.
const PG_UNAVAILABLE = /^(08|53)|^57P0[1-3]$/;
// Node's socket errors, as pg passes them on.
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE']);
// SQLite: locked past the busy timeout, an I/O error, a full disk, a file that cannot be opened.
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY)/;
// pg's own messages for a connection it lost or could not make in time (they carry no code).
const PG_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/** @example storageUnavailable(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })) // → true */
export function storageUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || PG_UNAVAILABLE.test(code) || SQLITE_UNAVAILABLE.test(code))) return true;
  return PG_MESSAGES.test(error.message);
}
