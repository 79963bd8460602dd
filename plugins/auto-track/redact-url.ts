// URLs in automatic events (page views, session starts, clicked links) without the secrets and personal data that
// sites put in query strings, as GA4's data redaction does: the values of parameters whose names look sensitive (in
// the query and in a fragment of parameters, like an OAuth redirect's #access_token=…), and e-mail addresses
// anywhere. `utm_*` and every other parameter stay as they are.

/** A parameter name containing any of these (case-insensitive) has its value redacted. */
const SENSITIVE = /pass|pwd|token|secret|auth|session|email|key/;
// `?name=value`, `&name=value` or `#name=value`.
const PARAM = /([?&#])([^=&#]*)=([^&#]*)/g;
// An address as it appears in a URL: raw, or with its @ percent-encoded.
const EMAIL = /[\w.%+-]+(?:@|%40)[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}/gi;
const REDACTED = '(redacted)';

function decoded(text: string): string {
  try {
    return decodeURIComponent(text).toLowerCase();
  } catch {
    return text.toLowerCase();
  }
}

/**
 * `url` with the values of sensitive parameters (and of those named in `extraNames`) and every e-mail address
 * redacted.
 * @example redactUrl('https://shop.example/reset?token=abc&utm_source=mail') // → '…?token=(redacted)&utm_source=mail'
 */
export function redactUrl(url: string, extraNames: readonly string[] = []): string {
  return url
    .replace(PARAM, (param, separator: string, name: string) => {
      const key = decoded(name);
      const sensitive = !key.startsWith('utm_') && (SENSITIVE.test(key) || extraNames.some((n) => key === n.toLowerCase()));
      return sensitive ? `${separator}${name}=${REDACTED}` : param;
    })
    .replace(EMAIL, REDACTED);
}
