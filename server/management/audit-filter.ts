import { ServiceError } from '../errors/service-error.js';
import { isoTime } from '../http/iso-time.js';
import type { AuditFilter } from './managed-item-store.js';

export const AUDIT_LIMIT = { default: 100, max: 1000 };
const DAY_MS = 86_400_000;

/**
 * The audit's filters from the query: `actor` (a key's id or a person's email), `kind`, `name`, and `since` / `until`
 * (ISO dates or date-times; `until` a date alone means through that day).
 * @throws ServiceError `invalid_request`.
 */
export function auditFilter(query: Record<string, string | undefined>, kinds: readonly string[]): AuditFilter {
  const filter: AuditFilter = {};
  const text = (field: 'actor' | 'name'): void => {
    const value = query[field];
    if (value === undefined) return;
    if (typeof value !== 'string' || value === '' || value.length > 254) throw new ServiceError('invalid_request', `${field}: must be 1 to 254 characters`);
    filter[field] = field === 'actor' && value.includes('@') ? value.toLowerCase() : value;
  };
  text('actor');
  text('name');
  if (query.kind !== undefined) {
    if (!kinds.includes(query.kind)) throw new ServiceError('invalid_request', `kind: must be one of ${kinds.join(', ')}`);
    filter.kind = query.kind;
  }
  for (const field of ['since', 'until'] as const) {
    const value = query[field];
    if (value === undefined) continue;
    const at = isoTime(value, { dateOnly: true });
    if (Number.isNaN(at)) throw new ServiceError('invalid_request', `${field}: must be an ISO 8601 date or date-time`);
    filter[field] = field === 'until' && value.length === 10 ? at + DAY_MS - 1 : at;
  }
  return filter;
}

