import type { Migration } from '../storage/migrations.js';

// Console sign-in: people's password hashes, sessions (known by the SHA-256 of the cookie's token, never the token),
// invitation links (by their token's SHA-256 too), and OpenID Connect sign-ins under way (state, nonce and PKCE
// verifier between the redirect to the provider and its answer; read once, so any node can take the callback).
const sessions = (t: { int: string }): string => `
ALTER TABLE people ADD COLUMN password_hash TEXT;
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  org TEXT NOT NULL,
  actor_type TEXT NOT NULL,
  actor_id TEXT NOT NULL,
  created_at ${t.int} NOT NULL,
  last_seen_at ${t.int} NOT NULL,
  expires_at ${t.int} NOT NULL
);
CREATE INDEX sessions_actor ON sessions (org, actor_type, actor_id);
CREATE TABLE invitations (
  token_hash TEXT PRIMARY KEY,
  org TEXT NOT NULL,
  email TEXT NOT NULL,
  created_at ${t.int} NOT NULL,
  expires_at ${t.int} NOT NULL
);
CREATE INDEX invitations_person ON invitations (org, email);
CREATE TABLE sign_in_flows (
  id TEXT PRIMARY KEY,
  org TEXT NOT NULL,
  project TEXT,
  state TEXT NOT NULL,
  nonce TEXT NOT NULL,
  verifier TEXT NOT NULL,
  created_at ${t.int} NOT NULL
);
`;

export const SESSION_MIGRATIONS: readonly Migration[] = [
  {
    version: 20,
    name: 'sessions: passwords, console sessions, invitations, single sign-on flows',
    sqlite: sessions({ int: 'INTEGER' }),
    postgres: sessions({ int: 'BIGINT' }),
  },
];
