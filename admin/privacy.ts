// What the project's privacy API answers (server/privacy/), as the console reads it.

/** Whom a privacy request names. */
export type PrivacySubject =
  | { kind: 'userId'; userId: string }
  | { kind: 'email'; email: string }
  | { kind: 'profileId'; profileId: string; sourceId: string };


export type { PrivacyRequest, Suppression } from '../wire/api/privacy-schema.js';
