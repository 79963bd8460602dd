import { actorOf } from '../auth/management-caller.js';
import { MAX_ID_LENGTH } from '../../wire/event.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ConsentsAnswer, ConsentsQuery, ErasureList, ExportAnswer, ExportList, ListQuery, PrivacyBody, PrivacyRequestSchema, SuppressionsAnswer,
} from '../../wire/api/privacy-schema.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import type { ProjectRef } from '../config/config-store.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { refuseJsonHazards } from '../http/json-hazards.js';
import { listLimit } from '../http/list-limit.js';
import type { ProjectParams } from '../http/project-endpoint.js';
import { op } from '../storage/sql-program.js';
import { num } from '../storage/sql-values.js';
import { normalEmail } from './email-address.js';
import { exportRow } from './person-rows.js';
import type { Subject } from './person.js';
import {
  createRequest, listRequests, readExportResult, readRequest, viewOf, type RequestKind,
} from './privacy-requests.js';
import type { PrivacyRunner } from './privacy-runner.js';
import { listSuppressions } from './suppressions.js';
import { toCsv } from './csv.js';
import type { ConfigStore } from '../config/config-store.js';
import type { Storage } from '../storage/storage.js';

const MAX_EMAIL = 320;
const LIST_LIMIT = { default: 100, max: 1000 };
const PATHS: Record<RequestKind, string> = { erasure: 'erasures', export: 'exports' };

type IdParams = ProjectParams & { id: string };

/** `{profileId, sourceId}`, `{userId}` or `{email}`: exactly one way of naming the person. */
function subjectOf(project: ProjectRef, body: unknown): Subject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ServiceError('invalid_request', 'body: must be an object naming the person: {profileId, sourceId}, {userId} or {email}');
  }
  refuseJsonHazards(body, 'invalid_request', 'body');
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((k) => !['profileId', 'sourceId', 'userId', 'email'].includes(k));
  if (unknown !== undefined) throw new ServiceError('invalid_request', `${unknown}: is not a field of a privacy request`);
  const named = ['profileId', 'userId', 'email'].filter((k) => fields[k] !== undefined);
  if (named.length !== 1) {
    throw new ServiceError('invalid_request', `body: name the person one way: {profileId, sourceId}, {userId} or {email} (got ${named.length === 0 ? 'none' : named.join(' and ')})`);
  }
  const text = (field: string, max: number): string => {
    const value = fields[field];
    if (typeof value !== 'string' || value.length === 0 || value.length > max) invalid(field, `must be a non-empty string of at most ${max} characters`);
    return value;
  };
  if (named[0] === 'profileId') {
    const value = text('profileId', MAX_ID_LENGTH);
    if (fields.sourceId === undefined) invalid('sourceId', 'is required with profileId (the source that profile id came from)');
    const sourceId = text('sourceId', MAX_ID_LENGTH);
    if (!project.config.sources.includes(sourceId)) {
      throw new ServiceError('source_not_allowed', `The source ${quoted(sourceId)} is not a source of this project.`);
    }
    return { kind: 'profileId', value, sourceId };
  }
  if (fields.sourceId !== undefined) invalid('sourceId', 'goes with profileId only');
  if (named[0] === 'userId') return { kind: 'userId', value: text('userId', MAX_ID_LENGTH) };
  // One address however it was typed, as consent records store it (email-address.ts).
  const email = normalEmail(text('email', MAX_EMAIL));
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) invalid('email', 'must be an email address');
  return { kind: 'email', value: email };
}

function invalid(field: string, problem: string): never {
  throw new ServiceError('invalid_request', `${field}: ${problem}`);
}

/** A time query parameter (ISO 8601 or epoch ms). */
function timeOf(field: string, raw: string | undefined, byDefault: number): number {
  if (raw === undefined || raw === '') return byDefault;
  const at = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(at)) invalid(field, 'must be an ISO 8601 time or epoch milliseconds');
  return at;
}

function notFound(kind: RequestKind, id: string): never {
  throw new ServiceError('privacy_request_not_found', `There is no ${kind} request ${quoted(id)} in this project.`);
}

/** What the privacy routes use of the service. */
export interface PrivacyRouteDeps {
  config: ConfigStore;
  storage: Storage;
  now: () => number;
}

const ACCESS = { kind: 'project', keys: ['adminKey'], role: 'admin' } as const;
const TAG = 'Privacy';
const ID = { id: { description: 'The request\'s id (`er_…`, `ex_…`).' } };

/**
 * Privacy requests under `/v1/{org}/projects/{project}/privacy` (admin keys only): erasures and exports of one person
 * (`POST` → 202 `{id, status}`, run in the background by the PrivacyRunner of any node; `GET` one or the list), an
 * export's data as JSON (with its status) or one kind of row as CSV, the suppression list, and the proof of consent
 * of a period.
 */
export function privacyRoutes(ctx: PrivacyRouteDeps, runner: PrivacyRunner): ApiRoute[] {
  const base = '/v1/:org/projects/:project/privacy';
  const project = (request: FastifyRequest): ProjectRef => request.auth!.project;

  const requestRoutes = (['erasure', 'export'] as const).flatMap((kind): ApiRoute[] => {
    const path = `${base}/${PATHS[kind]}`;
    return [
      apiRoute<{ Params: ProjectParams }>({
        method: 'POST', path, tag: TAG, access: ACCESS, errors: ['invalid_request', 'source_not_allowed'],
        summary: kind === 'erasure' ? 'Erase a person' : 'Export a person\'s data',
        description: kind === 'erasure'
          ? 'Every row of the person (all their linked ids) is deleted in the background, and they are suppressed: their later events and consents are refused.'
          : 'Every row of the person (all their linked ids) is collected in the background; read it with `GET` once `done`.',
        request: { json: PrivacyBody },
        answers: { 202: { description: 'Received; it runs in the background.', json: PrivacyRequestSchema, headers: { Location: 'The request\'s address.' } } },
        handler: async (request, reply) => {
          const p = project(request);
          const subject = subjectOf(p, request.body);
          const created = await ctx.storage.transaction(() => createRequest(p.key, kind, subject, request.auth!.key.id, ctx.now(), actorOf(request, request.auth!.key)));
          void runner.kick();
          reply.code(202);
          reply.header('location', `/v1/${p.org}/projects/${p.name}/privacy/${PATHS[kind]}/${created.id}`);
          return viewOf(created);
        },
      }),
      apiRoute<{ Params: ProjectParams; Querystring: { limit?: string } }>({
        method: 'GET', path, tag: TAG, access: ACCESS, errors: ['invalid_request'],
        summary: `List the ${PATHS[kind]}`,
        request: { query: ListQuery },
        answers: { 200: { description: 'Newest first.', json: kind === 'erasure' ? ErasureList : ExportList } },
        handler: async (request) => {
          const rows = await ctx.storage.run(() => listRequests(project(request).key, kind, listLimit(request.query.limit, LIST_LIMIT)));
          return { [PATHS[kind]]: rows.map(viewOf) };
        },
      }),
      apiRoute<{ Params: IdParams }>({
        method: 'GET', path: `${path}/:id`, tag: TAG, access: ACCESS, errors: ['privacy_request_not_found'],
        summary: kind === 'erasure' ? 'Read an erasure' : 'Read an export, with its data once done',
        request: { params: ID },
        answers: { 200: { description: 'The request.', json: kind === 'erasure' ? PrivacyRequestSchema : ExportAnswer } },
        handler: async (request) => {
          const p = project(request);
          const found = await ctx.storage.run(() => readRequest(p.key, request.params.id));
          if (found === null) notFound(kind, request.params.id);
          if (kind === 'erasure' || found.status !== 'done') return viewOf(found);
          const data = await ctx.storage.run(() => readExportResult(p.key, found.id));
          return { ...viewOf(found), ...(data ?? {}) };
        },
      }),
    ];
  });

  return [
    ...requestRoutes,
    apiRoute<{ Params: IdParams & { table: string } }>({
      method: 'GET', path: `${base}/exports/:id/:table`, tag: TAG, access: ACCESS,
      errors: ['route_not_found', 'privacy_request_not_found', 'invalid_request'],
      summary: 'One kind of an export\'s rows, as CSV',
      request: { params: { ...ID, table: { description: 'The kind of row and `.csv`: `events.csv`, `consents.csv`…' } } },
      answers: { 200: { description: 'The rows.', media: { 'text/csv': 'A header row, then one line per row (RFC 4180); cells a spreadsheet would run are defused.' } } },
      handler: async (request, reply: FastifyReply) => {
        const p = project(request);
        const match = /^([a-zA-Z]+)\.csv$/.exec(request.params.table);
        if (match === null) throw new ServiceError('route_not_found', 'Ask for one kind of row as CSV: exports/{id}/events.csv.');
        const found = await ctx.storage.run(() => readRequest(p.key, request.params.id));
        if (found === null || found.kind !== 'export') notFound('export', request.params.id);
        const data = found.status === 'done' ? await ctx.storage.run(() => readExportResult(p.key, found.id)) : null;
        if (data === null) throw new ServiceError('privacy_request_not_found', `The export ${quoted(found.id)} has no data (status ${found.status}).`);
        const rows = data[match[1]!];
        if (!Array.isArray(rows)) throw new ServiceError('invalid_request', `table: the export has no rows of kind ${quoted(match[1]!)}; kinds: ${Object.keys(data).join(', ')}`);
        reply.type('text/csv; charset=utf-8');
        reply.header('content-disposition', `attachment; filename="${found.id}-${match[1]}.csv"`);
        return toCsv(rows as Record<string, unknown>[]);
      },
    }),
    apiRoute<{ Params: ProjectParams }>({
      method: 'GET', path: `${base}/suppressions`, tag: TAG, access: ACCESS, errors: [],
      summary: 'The suppression list',
      description: 'The erased people\'s ids: their events and consents are refused.',
      answers: { 200: { description: 'Newest first.', json: SuppressionsAnswer } },
      handler: async (request) => {
        const rows = await ctx.storage.run(() => listSuppressions(project(request).key));
        return { suppressions: rows.map((s) => ({ ...s, createdAt: new Date(s.createdAt).toISOString() })) };
      },
    }),
    // Proof of consent for a period (default: everything), oldest first, as JSON or CSV (`format=csv`).
    apiRoute<{ Params: ProjectParams; Querystring: { from?: string; to?: string; format?: string; limit?: string } }>({
      method: 'GET', path: `${base}/consents`, tag: TAG, access: ACCESS, errors: ['invalid_request'],
      summary: 'Proof of consent for a period',
      request: { query: ConsentsQuery },
      answers: { 200: { description: 'The consent records, oldest first.', json: ConsentsAnswer, media: { 'text/csv': 'With `format=csv`.' } } },
      handler: async (request, reply) => {
        const { from, to, format } = request.query;
        if (format !== undefined && format !== 'json' && format !== 'csv') invalid('format', 'must be json or csv');
        const since = timeOf('from', from, 0);
        const until = timeOf('to', to, 8.64e15);
        const limit = request.query.limit === undefined ? 100_000 : listLimit(request.query.limit, LIST_LIMIT);
        const rows = await ctx.storage.run(function* () {
          const { rows: found } = yield op(
            `SELECT id, profile_id, source_id, category, action, valid_until, email, source, banner_version, page, ts, received_at
             FROM consents WHERE project = ? AND ts >= ? AND ts < ? ORDER BY ts, id LIMIT ?`,
            project(request).key, since, until, limit,
          );
          const iso = (v: unknown): string => new Date(num(v)).toISOString();
          return found.map((r) => ({ ...exportRow(r), id: num(r.id), ts: iso(r.ts), validUntil: iso(r.valid_until), receivedAt: iso(r.received_at) }));
        });
        if (format === 'csv') {
          reply.type('text/csv; charset=utf-8');
          return toCsv(rows);
        }
        return { consents: rows };
      },
    }),
  ];
}
