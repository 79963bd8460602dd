// Versioned migrations: each domain owns its tables' (server/<domain>/<domain>-migrations.ts) and the composition
// root lists them (server/schema.ts). A driver applies them in version order on start, every part of one version in
// one transaction with the version's row in schema_migrations; a shipped version is never edited.

export interface Migration {
  version: number;
  name: string;
  sqlite: string;
  postgres: string;
}

/** One version and its parts (several domains may add tables under one version, as the first one does). */
export interface MigrationStep {
  version: number;
  name: string;
  parts: readonly Migration[];
}

/**
 * The migrations as steps in version order, the parts of a version in the order given.
 * @example for (const step of migrationSteps(SCHEMA)) apply(step.version, step.parts.map((p) => p.sqlite).join('\n'));
 */
export function migrationSteps(migrations: readonly Migration[]): MigrationStep[] {
  const byVersion = new Map<number, Migration[]>();
  for (const migration of migrations) {
    const parts = byVersion.get(migration.version);
    if (parts) parts.push(migration);
    else byVersion.set(migration.version, [migration]);
  }
  return [...byVersion.entries()].sort(([a], [b]) => a - b)
    .map(([version, parts]) => ({ version, name: parts.map((p) => p.name).join('; '), parts }));
}
