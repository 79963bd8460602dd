// The service's schema: every domain's migrations (each owns its tables), which the storage runs in version order
// (storage/migrations.ts). A new version goes into the domain that owns the table, and is listed here through it.
import { CHOOSE_MIGRATIONS } from './choose/choose-migrations.js';
import { CONSENT_MIGRATIONS } from './consent/consent-migrations.js';
import { IDENTITY_MIGRATIONS } from './identity/identity-migrations.js';
import { INGEST_MIGRATIONS } from './ingest/ingest-migrations.js';
import { MANAGEMENT_MIGRATIONS } from './management/management-migrations.js';
import { PHASES_MIGRATIONS } from './phases/phases-migrations.js';
import { PRIVACY_MIGRATIONS } from './privacy/privacy-migrations.js';
import { RECOMMENDATION_MIGRATIONS } from './recommendations/recommendation-migrations.js';
import { RESULTS_MIGRATIONS } from './results/results-migrations.js';
import { SESSION_MIGRATIONS } from './sessions/session-migrations.js';
import type { Migration } from './storage/migrations.js';
import { WEBHOOK_MIGRATIONS } from './webhooks/webhook-migrations.js';

export const SCHEMA: readonly Migration[] = [
  ...INGEST_MIGRATIONS, ...IDENTITY_MIGRATIONS, ...CONSENT_MIGRATIONS, ...CHOOSE_MIGRATIONS, ...RECOMMENDATION_MIGRATIONS,
  ...MANAGEMENT_MIGRATIONS, ...PRIVACY_MIGRATIONS, ...RESULTS_MIGRATIONS,
  ...PHASES_MIGRATIONS, ...SESSION_MIGRATIONS, ...WEBHOOK_MIGRATIONS,
];
