/** A request the service refused, or that never reached it (`status` 0). */
export class ApiError extends Error {
  /**
   * @param retryAfter - Seconds to wait before trying again, from a 429's `Retry-After` (too many failed sign-ins).
   */
  constructor(readonly status: number, readonly code: string, message: string, readonly retryAfter?: number) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The seconds a `Retry-After` header asks for (a number of seconds, or an HTTP date), or undefined. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
