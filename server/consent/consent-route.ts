import { ConsentRecordSchema } from '../../wire/api/ingest-schema.js';
import { OkAnswer } from '../../wire/api/schema-parts.js';
import { validateConsent } from './validate-consent.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import type { ProjectParams } from '../http/project-endpoint.js';
import { recordConsent } from './consent-store.js';
import type { ConfigStore } from '../config/config-store.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { Storage } from '../storage/storage.js';

/** What the consent route uses of the service. */
export interface ConsentRouteDeps {
  config: ConfigStore;
  storage: Storage;
  metrics: ServiceMetrics;
}

/**
 * `POST /v1/{org}/projects/{project}/consents/data` (Basic writeKey): stores one consent record, once per
 * `eventId` when it carries one, and answers `{ok:true}`.
 */
export function consentRoute(ctx: ConsentRouteDeps): ApiRoute {
  return apiRoute<{ Params: ProjectParams }>({
    method: 'POST',
    path: '/v1/:org/projects/:project/consents/data',
    tag: 'Ingestion',
    summary: 'Record a consent decision',
    description: 'Stores one consent record (a row per category for a banner\'s `categories`), once per `eventId`.',
    access: { kind: 'project', keys: ['writeKey'] },
    request: { json: ConsentRecordSchema },
    answers: { 200: { description: 'Stored (or stored before).', json: OkAnswer } },
    errors: ['invalid_consent', 'source_not_allowed'],
    handler: async (request) => {
      const record = validateConsent(request.body);
      const project = request.auth?.project;
      if (!project) throw new ServiceError('missing_credentials', 'Send HTTP Basic credentials with a writeKey.');
      if (record.sourceId !== undefined && !project.config.sources.includes(record.sourceId)) {
        throw new ServiceError('source_not_allowed', `The source ${quoted(record.sourceId)} is not a source of this project.`);
      }
      if (await recordConsent(ctx.storage, project.key, record)) ctx.metrics.consentsRecorded.inc({ project: project.key });
      return { ok: true };
    },
  });
}
