// ISO 8601 as request bodies and queries carry it, checked for a real calendar day and time: `Date.parse` alone
// accepts much else (`"1"`, `"March 7"`) and rolls impossible dates over (2024-02-30 becomes 1 March).

// `2026-11-24T10:00`, seconds and fractions optional, with a zone; or, where allowed, a date alone (midnight UTC).
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(T(\d{2}):(\d{2})(:(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/**
 * Epoch milliseconds of an ISO 8601 date-time with its zone (or, with `dateOnly`, also a date alone), or NaN for
 * anything else, including a day or time that does not exist.
 * @example isoTime('2026-11-24T10:00:00Z') // → 1795514400000;  isoTime('2024-02-30T00:00:00Z') // → NaN
 */
export function isoTime(value: unknown, options: { dateOnly?: boolean } = {}): number {
  const match = typeof value === 'string' ? ISO_8601.exec(value) : null;
  if (match === null || (match[4] === undefined && !options.dateOnly)) return Number.NaN;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  const real = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
    && Number(match[5] ?? 0) < 24 && Number(match[6] ?? 0) < 60 && Number(match[8] ?? 0) < 60;
  return real ? Date.parse(match[0]) : Number.NaN;
}
