// The browser family of a User-Agent header, for results' breakdowns: the few families a site owner tells apart, in
// the order their tokens must be tested (Edge and Opera carry Chrome's token, Chrome carries Safari's).

/**
 * How much of the header is read. A browser's User-Agent is under 300 characters, a bot's rarely over 400; the header
 * itself is the client's to make as long as the server lets through (16 KiB), and an expression is not the place to
 * find out what that costs. The tokens that tell the families apart come in the first few hundred characters.
 */
export const MAX_USER_AGENT = 512;

/**
 * Each family's tokens, every one of which the header must hold. Literals and alternations of literals only: each is
 * one pass over the header whatever it holds (no quantifier can take the same characters another one may take).
 */
const FAMILIES: readonly [readonly RegExp[], string][] = [
  [[/bot|crawl|spider|slurp|headless/i], 'Bot'],
  [[/Edg(?:e|A|iOS)?\//], 'Edge'],
  [[/OPR\/|Opera/], 'Opera'],
  [[/SamsungBrowser\//], 'Samsung Internet'],
  [[/Firefox\/|FxiOS\//], 'Firefox'],
  [[/Chrome\/|CriOS\/|Chromium\//], 'Chrome'],
  // Safari says Version/17.5 … Safari/605.1.15; a WebView says Safari/ without Version/.
  [[/Version\/\d/, /Safari\//], 'Safari'],
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
  const header = userAgent.slice(0, MAX_USER_AGENT);
  const seen = known.get(header);
  if (seen !== undefined) return seen;
  const family = FAMILIES.find(([tokens]) => tokens.every((token) => token.test(header)))?.[1] ?? 'Other';
  if (known.size >= REMEMBERED) known.clear();
  known.set(header, family);
  return family;
}
