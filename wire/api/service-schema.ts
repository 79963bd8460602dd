// The service's own routes: health.
import Type from 'typebox';
import { IsoTime } from './schema-parts.js';

const ConfigHealth = Type.Object({
  revision: Type.Integer({ description: 'The database revision of the management API\'s items served.' }),
  stale: Type.Optional(Type.Object({ since: IsoTime(), error: Type.String() }, { description: 'The database cannot be read: the last good config is served.' })),
});

export const HealthAnswer = Type.Object({
  ok: Type.Literal(true),
  storage: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  config: Type.Optional(ConfigHealth),
});

export const HealthDownAnswer = Type.Object({
  error: Type.Object({ code: Type.Literal('storage_unavailable'), message: Type.String() }),
  config: ConfigHealth,
});
