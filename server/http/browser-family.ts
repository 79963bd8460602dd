// The browser family of a User-Agent header, for results' breakdowns: the few families a site owner tells apart, in
// the order their tokens must be tested (Edge and Opera carry Chrome's token, Chrome carries Safari's).

const FAMILIES: readonly [RegExp, string][] = [
  [/bot|crawl|spider|slurp|headless/i, 'Bot'],
  [/Edg(?:e|A|iOS)?\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/SamsungBrowser\//, 'Samsung Internet'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrome\/|CriOS\/|Chromium\//, 'Chrome'],
  [/Version\/[\d.]+.*Safari\//, 'Safari'],
];

/** How many distinct headers are remembered: real traffic repeats a few hundred. */
const REMEMBERED = 1000;
const known = new Map<string, string>();

/**
 * `Chrome`, `Safari`, `Firefox`, `Edge`, `Opera`, `Samsung Internet`, `Bot` or `Other`; null without a header.
 * @example browserFamily('Mozilla/5.0 … Chrome/131.0.0.0 Safari/537.36') // → 'Chrome'
 */
export function browserFamily(userAgent: string | undefined): string | null {
  if (userAgent === undefined || userAgent === '') return null;
  const seen = known.get(userAgent);
  if (seen !== undefined) return seen;
  const family = FAMILIES.find(([pattern]) => pattern.test(userAgent))?.[1] ?? 'Other';
  if (known.size >= REMEMBERED) known.clear();
  known.set(userAgent, family);
  return family;
}
