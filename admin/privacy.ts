// What the project's privacy API answers (server/privacy/), as the console reads it.

/** Whom a privacy request names. */
export type PrivacySubject =
  | { kind: 'userId'; userId: string }
  | { kind: 'email'; email: string }
  | { kind: 'profileId'; profileId: string; sourceId: string };

/** An erasure or export as the service answers it. */
export interface PrivacyRequest {
  id: string;
  kind: 'erasure' | 'export';
  status: 'received' | 'running' | 'done';
  /** After an erasure is done, only the kind of id it named. */
  subject: { kind: PrivacySubject['kind']; value?: string; sourceId?: string };
  counts: Record<string, number>;
  createdAt: string;
  finishedAt: string | null;
}

/** An erased id, refused from then on. */
export interface Suppression {
  kind: 'profile' | 'user' | 'email';
  value: string;
  requestId: string;
  createdAt: string;
}
