/**
 * An email address as the service stores, suppresses and looks it up: without surrounding whitespace, in lower case.
 * A visitor types their address as they like (`Pat@Example.com `), and an erasure by one spelling must find, and
 * keep out, every other; the domain is case-insensitive, and no mail system we know of treats local parts otherwise.
 * @example normalEmail(' Pat.X@Example.com') // → 'pat.x@example.com'
 */
export function normalEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

/**
 * `normalEmail` in each database's SQL, for migrations of stored addresses: whitespace (space, tab, line ends,
 * vertical tab, form feed) trimmed, lower case. SQLite's lower() and PostgreSQL's under a C ctype change ASCII letters
 * only, so an address stored with other capitals keeps them (and is then found only as typed).
 * @example `UPDATE consents SET email = ${NORMAL_EMAIL_SQL.sqlite('email')}`
 */
export const NORMAL_EMAIL_SQL = {
  sqlite: (column: string): string => `lower(trim(${column}, char(32, 9, 10, 11, 12, 13)))`,
  postgres: (column: string): string => `lower(btrim(${column}, chr(32) || chr(9) || chr(10) || chr(11) || chr(12) || chr(13)))`,
};
