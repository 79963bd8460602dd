import { randomBytes } from 'node:crypto';
import type { Actor } from '../auth/management-caller.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { lockingRows, op, type SqlProgram, type SqlRow } from '../storage/sql-program.js';
import { num } from '../storage/sql-values.js';
import type { WebhookEndpoint } from '../../wire/api/webhook-schema.js';
import type { WebhookEventType, WebhookFormat } from '../../wire/webhook-events.js';

// A project's webhook endpoints: created with a secret answered once, replaced whole under a version (If-Match),
// deleted; every write audited in its transaction, with the endpoint as the API shows it (never its secret). Disabling
// or deleting an endpoint gives up its pending deliveries, so nothing is sent to an endpoint its admin turned off.

/** What a caller sets of an endpoint: a POST's or PUT's body, checked (endpoint-input.ts). */
export interface EndpointFields {
  url: string;
  events: WebhookEventType[];
  format: WebhookFormat;
  enabled: boolean;
  description: string;
}

/** An audit entry of an endpoint's change: named by its id, each side as the API shows it. */
export interface WebhookAuditEntry {
  project: string;
  at: number;
  keyId: string;
  action: 'create' | 'update' | 'delete' | 'disable';
  kind: 'webhook';
  name: string;
  before: WebhookEndpoint | null;
  after: WebhookEndpoint | null;
  actor: Actor;
}

/**
 * Appends an audit entry in the caller's transaction: the audit log's one writer (management's appendAudit), handed
 * in by the app, since management imports webhooks (the outbox its writes queue events into) and not the reverse.
 */
export type AppendAudit = (entry: WebhookAuditEntry) => SqlProgram<void>;

/** Who writes, when, and where the write is audited. */
export interface EndpointWriter {
  at: number;
  keyId: string;
  actor: Actor;
  audit: AppendAudit;
}

const COLUMNS = 'id, url, events, format, enabled, description, version, created_at, updated_at, failing_since, disabled_reason';

const iso = (value: unknown): string => new Date(num(value)).toISOString();
const isoOrNull = (value: unknown): string | null => (value == null ? null : iso(value));

/** A stored endpoint as the API answers it. */
function endpointView(row: SqlRow): WebhookEndpoint {
  return {
    id: String(row.id),
    url: String(row.url),
    events: JSON.parse(String(row.events)) as WebhookEventType[],
    format: String(row.format) as WebhookFormat,
    enabled: num(row.enabled) === 1,
    description: String(row.description),
    version: num(row.version),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    failingSince: isoOrNull(row.failing_since),
    disabledReason: row.disabled_reason == null ? null : String(row.disabled_reason),
  };
}

/** A new endpoint's id: `ep_` and 16 random bytes, base64url. */
const newEndpointId = (): string => `ep_${randomBytes(16).toString('base64url')}`;

/** A signing secret in the Standard Webhooks form: `whsec_` and the base64 of 24 random bytes (the HMAC key). */
const newSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

export function notFound(id: string): never {
  throw new ServiceError('webhook_not_found', `There is no webhook endpoint ${quoted(id)} in this project.`);
}

/** The project's endpoints, oldest first. */
export function* listEndpoints(project: string): SqlProgram<WebhookEndpoint[]> {
  const { rows } = yield op(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE project = ? ORDER BY created_at, id`, project);
  return rows.map(endpointView);
}

/** One endpoint of the project, or null. */
export function* readEndpoint(project: string, id: string): SqlProgram<WebhookEndpoint | null> {
  const { rows } = yield op(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE project = ? AND id = ?`, project, id);
  return rows[0] ? endpointView(rows[0]) : null;
}

/**
 * The endpoint a write replaces or deletes, locked until the transaction ends, at the version `ifMatch` names (when
 * given).
 * @throws ServiceError `webhook_not_found`, `version_conflict`.
 */
function* lockedEndpoint(project: string, id: string, ifMatch: number | undefined): SqlProgram<WebhookEndpoint> {
  const { rows } = yield lockingRows(op(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE project = ? AND id = ?`, project, id), 'wait');
  if (!rows[0]) notFound(id);
  const endpoint = endpointView(rows[0]);
  if (ifMatch !== undefined && ifMatch !== endpoint.version) {
    throw new ServiceError('version_conflict', `The webhook endpoint ${quoted(id)} is at version ${endpoint.version}, not ${ifMatch}.`);
  }
  return endpoint;
}

/** Gives up the endpoint's pending deliveries: none of them is sent, and its log says why. */
function* failPending(project: string, id: string, reason: string): SqlProgram<void> {
  yield op(
    `UPDATE webhook_deliveries SET status = 'failed', next_at = NULL, lease_until = NULL, last_error = ?
     WHERE project = ? AND endpoint_id = ? AND status = 'pending'`,
    reason, project, id,
  );
}

/** Stores a new endpoint at version 1 with a new secret, audited; answers it and its secret. */
export function* createEndpoint(project: string, fields: EndpointFields, by: EndpointWriter): SqlProgram<{ endpoint: WebhookEndpoint; secret: string }> {
  const id = newEndpointId();
  const secret = newSecret();
  yield op(
    `INSERT INTO webhook_endpoints (project, id, url, events, format, enabled, description, secret, version, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
    project, id, fields.url, JSON.stringify(fields.events), fields.format, fields.enabled ? 1 : 0, fields.description, secret, by.at, by.at,
  );
  const endpoint = (yield* readEndpoint(project, id))!;
  yield* by.audit({ project, at: by.at, keyId: by.keyId, action: 'create', kind: 'webhook', name: id, before: null, after: endpoint, actor: by.actor });
  return { endpoint, secret };
}

/**
 * Replaces an endpoint's fields (its secret stays) at the next version, audited. Enabled, it is no longer failing nor
 * disabled by the service (its admin turned it back on); turned off, its pending deliveries are given up.
 * @throws ServiceError `webhook_not_found`, `version_conflict`.
 */
export function* replaceEndpoint(
  project: string, id: string, fields: EndpointFields, ifMatch: number | undefined, by: EndpointWriter,
): SqlProgram<WebhookEndpoint> {
  const before = yield* lockedEndpoint(project, id, ifMatch);
  yield op(
    `UPDATE webhook_endpoints SET url = ?, events = ?, format = ?, enabled = ?, description = ?, version = version + 1, updated_at = ?,
       failing_since = CASE WHEN ? = 1 THEN NULL ELSE failing_since END, disabled_reason = CASE WHEN ? = 1 THEN NULL ELSE disabled_reason END
     WHERE project = ? AND id = ?`,
    fields.url, JSON.stringify(fields.events), fields.format, fields.enabled ? 1 : 0, fields.description, by.at,
    fields.enabled ? 1 : 0, fields.enabled ? 1 : 0, project, id,
  );
  if (before.enabled && !fields.enabled) yield* failPending(project, id, 'endpoint disabled');
  const after = (yield* readEndpoint(project, id))!;
  yield* by.audit({ project, at: by.at, keyId: by.keyId, action: 'update', kind: 'webhook', name: id, before, after, actor: by.actor });
  return after;
}

/**
 * Deletes an endpoint, audited; its pending deliveries are given up (its log stays, read by id no more).
 * @throws ServiceError `webhook_not_found`, `version_conflict`.
 */
export function* deleteEndpoint(project: string, id: string, ifMatch: number | undefined, by: EndpointWriter): SqlProgram<void> {
  const before = yield* lockedEndpoint(project, id, ifMatch);
  yield op('DELETE FROM webhook_endpoints WHERE project = ? AND id = ?', project, id);
  yield* failPending(project, id, 'endpoint deleted');
  yield* by.audit({ project, at: by.at, keyId: by.keyId, action: 'delete', kind: 'webhook', name: id, before, after: null, actor: by.actor });
}
