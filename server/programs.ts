// The service's named programs (storage/program.ts), listed once: the storage's threads serve this module's PROGRAMS
// by name (Storage.hostPrograms), and the composition root (app.ts) places the same objects. Here, too, ingestion's
// stored events are handed on to the recommendation models' inbox: neither domain knows the other.
import type { ServiceEvent } from '../wire/event.js';
import { CHOOSE_PROGRAMS } from './choose/choose-programs.js';
import { storeBatch, type IngestOptions } from './ingest/event-store.js';
import { ingestBatchesProgram, type IngestResult } from './ingest/ingest-program.js';
import { FEED_REPORT } from './recommendations/feed-report-program.js';
import { ISSUE_RECOMMENDATION } from './recommendations/issued-recommendations.js';
import { APPLY_MODELS, appendToModelInbox } from './recommendations/model-inbox.js';
import { PLAN_READ } from './planning/plan-program.js';
import { INDEX_EXPOSURES } from './results/exposure-indexer.js';
import { EXPERIMENT_RESULTS } from './results/results-service.js';
import { moduleBeside, programTable } from './storage/program.js';
import type { Storage } from './storage/storage.js';

/** Ingestion, its new events handed on to the models' inbox in the same transaction. */
export const INGEST = ingestBatchesProgram(appendToModelInbox);

export const PROGRAMS = programTable([
  INGEST, APPLY_MODELS, ISSUE_RECOMMENDATION, FEED_REPORT, ...CHOOSE_PROGRAMS, EXPERIMENT_RESULTS, INDEX_EXPOSURES, PLAN_READ,
]);

/** This module, as a thread imports it: `programs.mjs` beside dist/server.mjs (esbuild builds it as an entry). */
export const PROGRAMS_MODULE = moduleBeside(import.meta.url, 'programs');

/**
 * Stores a batch as the track endpoint does (INGEST), without a running service: for tools, benches and tests. The
 * models count it once an applier has run (applyModelsNow).
 * @example await ingestBatch(storage, 'acme/shop', 'web', events); await applyModelsNow(storage);
 */
export function ingestBatch(
  storage: Storage, project: string, sourceId: string, events: ServiceEvent[], options: IngestOptions = {},
): Promise<IngestResult> {
  return storeBatch(storage, INGEST, project, sourceId, events, options);
}
