/**
 * An email address as the service stores, suppresses and looks it up: without surrounding whitespace, in lower case.
 * A visitor types their address as they like (`Pat@Example.com `), and an erasure by one spelling must find, and
 * keep out, every other; the domain is case-insensitive, and no mail system we know of treats local parts otherwise.
 * @example normalEmail(' Pat.X@Example.com') // → 'pat.x@example.com'
 */
export function normalEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

