// An organization's people and admin keys, and signing in to the console: what those routes take and answer.
import Type, { type Static } from 'typebox';
import { IsoTime, Nullable } from './schema-parts.js';

const RoleSchema = Type.Union([Type.Literal('viewer'), Type.Literal('editor'), Type.Literal('admin')], {
  description: '`viewer` reads, `editor` also changes items, `admin` also manages who may.',
});
const Projects = Nullable(Type.Array(Type.String()), { description: 'The projects it is narrowed to; null: every project of the organization.' });

export const AccessKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  projects: Projects,
  createdAt: IsoTime(),
  expiresAt: Nullable(IsoTime()),
}, { $id: 'AccessKey', description: 'An admin key made through the API, as listed: never its secret.' });

export const CreatedKeySchema = Type.Intersect([AccessKeySchema, Type.Object({
  key: Type.String({ description: 'The whole key, answered this once (the service keeps only its digest).' }),
})]);

export const NewKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64 }),
  role: RoleSchema,
  projects: Type.Optional(Projects),
  expiresAt: Type.Optional(Nullable(Type.String({ description: 'ISO 8601 date or date-time, in the future.' }))),
});

export const PersonSchema = Type.Object({
  email: Type.String(),
  role: RoleSchema,
  projects: Projects,
  createdAt: IsoTime(),
  updatedAt: IsoTime(),
  password: Type.Boolean({ description: 'Whether they have set a password.' }),
  invitedUntil: Nullable(IsoTime(), { description: 'When their open invitation link expires.' }),
}, { $id: 'Person' });

export const PersonBody = Type.Object({ role: RoleSchema, projects: Type.Optional(Projects) });

export const InvitationBody = Type.Object({
  expiresInHours: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 720, description: 'Default 168 (a week).' })),
});

export const InvitationAnswer = Type.Object({
  email: Type.String(),
  url: Type.String({ description: 'The link\'s path on this service: the person sets their password with it.' }),
  expiresAt: IsoTime(),
});

export const SignInAnswer = Type.Object({
  organization: Type.String(),
  password: Type.Boolean({ description: 'Whether people sign in with a password here.' }),
  sso: Type.Boolean({ description: 'Whether the organization has single sign-on.' }),
});

export const MeAnswer = Type.Object({
  actor: Type.Object({ type: Type.Union([Type.Literal('person'), Type.Literal('key')]), id: Type.String(), name: Type.String() }),
  role: RoleSchema,
  projects: Projects,
  csrfToken: Type.Optional(Type.String({ description: 'A session\'s: send it as `X-CSRF-Token` with every change.' })),
  expiresAt: Type.Optional(IsoTime('When the session ends at the latest.')),
  password: Type.Optional(Type.Boolean({ description: 'A person\'s session: whether they have a password.' })),
}, { $id: 'Me', description: 'Who the caller is, what it may do, and its session.' });

export const SessionBody = Type.Union([
  Type.Object({ email: Type.String(), password: Type.String({ minLength: 1 }) }, { description: 'A person\'s email and password.' }),
  Type.Object({}, { description: '`{}` with an admin key as Bearer: signs the key in.' }),
]);

export const PasswordBody = Type.Object({ currentPassword: Type.String(), password: Type.String() });

export const InvitationTokenBody = Type.Object({ token: Type.String() });
export const AcceptInvitationBody = Type.Object({ token: Type.String(), password: Type.String() });
export const InvitationLookupAnswer = Type.Object({ email: Type.String(), expiresAt: IsoTime() });

// The types of these shapes, for the service that answers them and the console that reads them.
/** What a key or a person may do, narrowest first. */
export type Role = Static<typeof RoleSchema>;
export type AccessKey = Static<typeof AccessKeySchema>;
/** A key just created: `key` is the whole secret, answered this once. */
export type CreatedKey = Static<typeof CreatedKeySchema>;
export type Person = Static<typeof PersonSchema>;
/** A key to create; `projects` left out: every project of the organization; `expiresAt` left out: never expires. */
export type NewKey = Static<typeof NewKeyBody>;
/** A person's access to set. `projects` left out: every project of the organization. */
export type PersonAccess = Static<typeof PersonBody>;
/** An invitation just made: `url` is relative to the service and shown this once. */
export type Invitation = Static<typeof InvitationAnswer>;
/** Who an invitation link is for (`POST /v1/{org}/invitations/lookup`). */
export type InvitationFor = Static<typeof InvitationLookupAnswer>;
/** How an organization's people sign in (`GET /v1/{org}/sign-in`). */
export type SignInOptions = Static<typeof SignInAnswer>;
/** Who is signed in (`GET /v1/{org}/me`, and the answer to every sign-in). */
export type Me = Static<typeof MeAnswer>;
