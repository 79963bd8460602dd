import { ServiceError } from '../errors/service-error.js';

/** How many entries a list answers: its default, and the most a caller may ask for with `?limit=`. */
export interface ListLimit {
  default: number;
  max: number;
}

/**
 * A list's `?limit=` as a number: `bounds.default` when absent, else a whole number from 1 to `bounds.max`.
 * @throws ServiceError `invalid_request` naming the bounds.
 * @example const limit = listLimit(request.query.limit, { default: 100, max: 1000 });
 */
export function listLimit(raw: string | undefined, bounds: ListLimit): number {
  const limit = raw === undefined ? bounds.default : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > bounds.max) {
    throw new ServiceError('invalid_request', `limit: must be a whole number from 1 to ${bounds.max}`);
  }
  return limit;
}
