import type { ConfigStore, KeyEntry } from '../config/config-store.js';
import crypto from 'node:crypto';
import { secretsEqual } from './secrets-equal.js';

/**
 * Full keys (`<id>.<secret>`) that already passed the constant-time comparison against the current config,
 * so a server-side caller presenting the same key on every request is not hashed (two SHA-256 digests) again.
 * Why this is safe:
 * - Only successes are remembered, so the memory holds at most one entry per configured key (it needs no
 *   other bound) and a wrong or guessed key always takes the full constant-time path: a failure is never
 *   answered faster for being close to a real key.
 * - A hit is faster than a miss, but it tells the caller only that its key is valid, which the answer's
 *   status tells anyway. The lookup itself hashes the presented string (time depends on its length, not on
 *   any stored secret) and compares contents only when the hashes collide.
 * - A config reload (ConfigStore.replace) empties it: a removed or changed key stops working at once.
 * @example const entry = verifiedKey(store, credentials.key) ?? verifyTheSlowWay();
 */
export function verifiedKey(store: ConfigStore, key: string): KeyEntry | undefined {
  return store.verifiedKeys.get(key);
}

/** Remembers a key that has just passed `secretsEqual` against `entry` under the store's current config. */
function rememberVerifiedKey(store: ConfigStore, key: string, entry: KeyEntry): void {
  store.verifiedKeys.set(key, entry);
}

// A stand-in compared when the key id is unknown, so a miss costs the same hashing as a hit.
const DUMMY_KEY = 'unknown.unknown';

/**
 * The configured key a full key (`<id>.<secret>`) is, or undefined when it is none: remembered once verified, else
 * compared in constant time with the key of its id (an unknown id is compared with a stand-in, at the same cost).
 * @example const entry = verifyKey(store, 'srv1.s3cret');
 */
export function verifyKey(store: ConfigStore, key: string, id: string, now = store.now()): KeyEntry | undefined {
  const remembered = verifiedKey(store, key);
  if (remembered !== undefined) return expired(remembered, now) ? undefined : remembered;
  const entry = store.keyById(id);
  // A stored key is known by its digest only: the presented key's digest is compared with it, in constant time.
  const matches = entry?.hash !== undefined
    ? secretsEqual(keyDigest(key), entry.hash)
    : secretsEqual(key, entry?.key ?? DUMMY_KEY);
  if (!entry || !matches || expired(entry, now)) return undefined;
  rememberVerifiedKey(store, key, entry);
  return entry;
}

function expired(entry: KeyEntry, now: number): boolean {
  return entry.expiresAt != null && entry.expiresAt <= now;
}

/**
 * The hex SHA-256 of a whole key, or of a session, invitation or sign-in flow token: what the database keeps of each
 * (they are 32 random bytes: no slow hash is needed).
 */
export function keyDigest(key: string): string {
  return crypto.createHash('sha256').update(key, 'utf8').digest('hex');
}
