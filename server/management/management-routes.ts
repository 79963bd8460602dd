import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import {
  AuditAnswer, AuditQuery, ExperienceAnswer, ExperienceItemSchema, FeedAnswerItem, FeedItemSchema, MetricAnswer, MetricItemSchema,
} from '../../wire/api/item-schema.js';
import { actorOf } from '../auth/management-caller.js';
import type { ProjectRef } from '../config/config-store.js';
import type { ExperienceConfig } from '../config/config-types.js';
import { ConfigError } from '../config/config-error.js';
import { validateConfig, validateExperienceItem, validateFeedItem, validateMetricItem } from '../config/validate-config.js';
import { experimentMetricNames } from '../config/validate-experiment-settings.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { ifMatchVersion } from '../http/if-match.js';
import { refuseJsonHazards } from '../http/json-hazards.js';
import { listLimit } from '../http/list-limit.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import type { ProjectParams } from '../http/project-endpoint.js';
import { auditFilter, AUDIT_LIMIT } from './audit-filter.js';
import { readAudit, writeItem, type Item, type ItemKind, type StoredItem, type WriteOutcome } from './managed-item-store.js';
import { groupItems, itemName, mergeItems } from './merge-items.js';
import type { ConfigStore } from '../config/config-store.js';
import type { Storage } from '../storage/storage.js';
import type { ManagedConfig } from './managed-config.js';

/** Each kind's path segment, its list's field in the answer and in a project's config, and its 404. */
const KINDS = {
  experience: { path: 'experiences', list: 'experiences', notFound: 'experience_not_found' },
  metric: { path: 'metrics', list: 'metrics', notFound: 'metric_not_found' },
  feed: { path: 'feeds', list: 'feeds', notFound: 'feed_not_found' },
} as const;


type Params = ProjectParams & { name: string };

/** What a project's audit log holds: its items' changes, its privacy requests and its webhook endpoints' changes. */
const PROJECT_KINDS = ['experience', 'metric', 'feed', 'erasure', 'export', 'webhook'];

/** An item as the API answers it: the item itself, plus `version`, `source` and (experiences) `status`. */
function view(ctx: ManagementDeps, project: ProjectRef, kind: ItemKind, item: Item): Item {
  const stored = ctx.managed.projectItems(project.key)?.get(kind)?.get(itemName(kind, item));
  const out: Item = { ...item, version: stored?.version ?? 1, source: stored ? 'api' : 'file' };
  if (kind === 'experience') out.status = item.status ?? 'running';
  return out;
}

/** The project's current items of a kind (file and API, as served). */
function current(project: ProjectRef, kind: ItemKind): Item[] {
  return (project.config[KINDS[kind].list] ?? []) as readonly object[] as Item[];
}

function find(project: ProjectRef, kind: ItemKind, name: string): Item | undefined {
  return current(project, kind).find((item) => itemName(kind, item) === name);
}

function fileItem(ctx: ManagementDeps, project: ProjectRef, kind: ItemKind, name: string): Item | null {
  const fromFile = ctx.managed.fileConfig.organizations[project.org]?.projects[project.name]?.[KINDS[kind].list] as Item[] | undefined;
  return fromFile?.find((item) => itemName(kind, item) === name) ?? null;
}

/**
 * Checks a PUT body by the file's own rules, with the name from the path (a body may leave it out, not contradict
 * it). The project's whole config with it in place (what refers to what) is checked inside the write (`projectCheck`).
 */
function validItem(project: ProjectRef, kind: ItemKind, name: string, body: unknown): Item {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ServiceError('invalid_config', `${kind}: the body must be one ${kind} as a JSON object`);
  }
  if (kind === 'feed' && !/^[1-9]\d{0,8}$/.test(name)) {
    throw new ServiceError('invalid_config', `feed.id: the id in the path must be a positive integer, not ${quoted(name)}`);
  }
  const key = kind === 'feed' ? 'id' : 'name';
  const fromPath = kind === 'feed' ? Number(name) : name;
  // The name comes first, from the path when the body leaves it out.
  const item: Item = { [key]: fromPath, ...(body as Item) };
  // What the API adds to answers is not part of an item: a client may send back what it read. The count of
  // re-randomisations is the service's too (`?rerandomize=true` adds one).
  delete item.version;
  delete item.source;
  if (kind === 'experience') delete item.randomization;
  // What parses and still breaks storing, compiling or serving it (U+0000 in the name, nesting past the stack).
  refuseJsonHazards(item, 'invalid_config', kind);
  try {
    if (item[key] !== fromPath) throw new ConfigError(`${kind}.${key}`, `must be the ${key} in the path (${quoted(name)})`);
    if (kind === 'experience') {
      const feedIds = new Set(current(project, 'feed').map((f) => f.id as number));
      validateExperienceItem(item, feedIds);
      if ((item as unknown as ExperienceConfig).status === 'running') delete item.status; // the default
      // Why the service stopped it belongs to the stop: a start (or any status but stopped) leaves it behind.
      if ((item as unknown as ExperienceConfig).status !== 'stopped') delete item.stoppedBy;
    } else if (kind === 'metric') validateMetricItem(item);
    else validateFeedItem(item);
  } catch (error) {
    if (error instanceof ConfigError) throw new ServiceError('invalid_config', error.message);
    throw error;
  }
  return item;
}

/**
 * The check of the project's whole config with `item` stored under (kind, name) (null: deleted), given the project's
 * stored items as the write's transaction reads them: a deleted feed an experience still uses is `item_in_use`, any
 * other broken reference or rule `invalid_config`.
 */
function projectCheck(ctx: ManagementDeps, project: ProjectRef, kind: ItemKind, name: string, item: Item | null) {
  return (stored: readonly StoredItem[]): void => {
    if (kind === 'metric' && item !== null) refuseNameTaken(ctx, project, name, stored);
    const next = stored.filter((s) => !(s.kind === kind && s.name === name));
    next.push({ project: project.key, kind, name, version: 0, item });
    const merged = mergeItems(ctx.managed.fileConfig, groupItems(next));
    if (kind === 'feed' && item === null) {
      const experiences = merged.organizations[project.org]?.projects[project.name]?.experiences ?? [];
      const user = experiences.find((e) => String(e.feed) === name);
      if (user) throw new ServiceError('item_in_use', `The experience ${quoted(user.name)} uses feed ${name}: change or delete it first.`);
    }
    if (kind === 'metric' && item === null) {
      const metrics = merged.organizations[project.org]?.projects[project.name]?.metrics ?? [];
      const ratio = metrics.find((m) => m.type === 'ratio' && (m.numerator === name || m.denominator === name));
      if (ratio) throw new ServiceError('item_in_use', `The ratio metric ${quoted(ratio.name)} uses ${quoted(name)} as its numerator or denominator: change or delete it first.`);
      const experiences = merged.organizations[project.org]?.projects[project.name]?.experiences ?? [];
      const judged = experiences.find((e) => experimentMetricNames(e).includes(name));
      if (judged) throw new ServiceError('item_in_use', `The experiment ${quoted(judged.name)} names ${quoted(name)} among its goals, secondary metrics or guardrails: change it first.`);
    }
    try {
      validateConfig(merged);
    } catch (error) {
      if (error instanceof ConfigError) throw new ServiceError('invalid_config', error.message);
      throw error;
    }
  };
}

/**
 * A new metric whose name differs from one already there only in case is refused: a reader (and a goal typed by hand)
 * takes `Purchase` and `purchase` for one metric. A pair already in the file before this rule is left as it is.
 * @throws ServiceError `metric_name_taken`.
 */
function refuseNameTaken(ctx: ManagementDeps, project: ProjectRef, name: string, stored: readonly StoredItem[]): void {
  const metrics = mergeItems(ctx.managed.fileConfig, groupItems(stored)).organizations[project.org]?.projects[project.name]?.metrics ?? [];
  if (metrics.some((m) => m.name === name)) return;
  const taken = metrics.find((m) => m.name.toLowerCase() === name.toLowerCase());
  if (taken) throw new ServiceError('metric_name_taken', `There is a metric ${quoted(taken.name)} already: a name that differs only in case would be taken for it. Use ${quoted(taken.name)} or another name.`);
}

/**
 * Stores `item` (null: deletes it) as the request's admin key, with its `If-Match`, then brings this node up to date so
 * the answer and the next request see the change.
 */
async function write(
  ctx: ManagementDeps, request: FastifyRequest, kind: ItemKind, name: string, item: Item | null, createOnly = false,
): Promise<WriteOutcome> {
  const project = request.auth!.project;
  const expected = ifMatchVersion(request);
  const rerandomize = kind === 'experience' && item !== null && rerandomizeAsked(request, item);
  const outcome = await writeItem(ctx.storage, {
    project: project.key, kind, name, item, fileItem: fileItem(ctx, project, kind, name), keyId: request.auth!.key.id, at: ctx.now(),
    check: projectCheck(ctx, project, kind, name, item),
    ...(expected !== undefined ? { ifMatch: expected } : {}),
    ...(createOnly ? { createOnly } : {}),
    ...(rerandomize ? { rerandomize } : {}),
    actor: actorOf(request, request.auth!.key),
  });
  await ctx.managed.refresh();
  return outcome;
}

/**
 * `?rerandomize=true` on a PUT of an experiment that runs after it: its new phase assigns everybody afresh (a new seed,
 * new first assignments). Refused for anything else: a draft, a stop, content.
 * @throws ServiceError `invalid_request`.
 */
function rerandomizeAsked(request: FastifyRequest, item: Item): boolean {
  const asked = (request.query as Record<string, unknown> | undefined)?.rerandomize;
  if (asked === undefined || asked === 'false') return false;
  if (asked !== 'true') throw new ServiceError('invalid_request', 'rerandomize: must be true or false');
  const experience = item as unknown as ExperienceConfig;
  if (experience.variations === undefined || (experience.status ?? 'running') !== 'running') {
    throw new ServiceError('invalid_request', 'rerandomize: only an experiment that runs after this write can be re-randomised');
  }
  return true;
}

/** The project's current item of that name, or the kind's 404. */
function found(project: ProjectRef, kind: ItemKind, name: string): Item {
  const item = find(project, kind, name);
  if (!item) throw new ServiceError(KINDS[kind].notFound, `There is no ${kind} ${quoted(name)} in this project.`);
  return item;
}

/** What the management routes use of the service. */
export interface ManagementDeps {
  config: ConfigStore;
  managed: ManagedConfig;
  storage: Storage;
  now: () => number;
}

/** Each kind's schemas and texts in the description. */
const DESCRIBED = {
  experience: { answer: ExperienceAnswer, tag: 'experience', name: 'The experience\'s name.' },
  metric: { answer: MetricAnswer, tag: 'metric', name: 'The metric\'s name.' },
  feed: { answer: FeedAnswerItem, tag: 'feed', name: 'The feed\'s id (a positive integer).' },
} as const;

/** A PUT's body: the item, whose name (a feed's id) may be left out: it comes from the path. */
function putBody(kind: ItemKind) {
  if (kind === 'feed') return Type.Object({ ...FeedItemSchema.properties, id: Type.Optional(Type.Integer({ description: 'Left out: the id in the path.' })) });
  const { properties } = kind === 'experience' ? ExperienceItemSchema : MetricItemSchema;
  return Type.Object({ ...properties, name: Type.Optional(Type.String({ description: 'Left out: the name in the path.' })) });
}

const ETAG = { ETag: 'The item\'s version, `"<version>"`: send it back as `If-Match`.' };
const ACCESS_READ = { kind: 'project', keys: ['adminKey'], role: 'viewer' } as const;
const ACCESS_WRITE = { kind: 'project', keys: ['adminKey'], role: 'editor' } as const;

/** A kind's four routes: list, read, create or replace, delete. */
function kindRoutes(ctx: ManagementDeps, kind: ItemKind): ApiRoute[] {
  const { path, list, notFound } = KINDS[kind];
  const { answer: answerSchema, name: nameText } = DESCRIBED[kind];
  const base = `/v1/:org/projects/:project/${path}`;
  const params = { name: { description: nameText } };
  const project = (request: FastifyRequest): ProjectRef => request.auth!.project;
  return [
    apiRoute<{ Params: ProjectParams }>({
      method: 'GET', path: base, tag: 'Management', access: ACCESS_READ, errors: [],
      summary: `List the ${path}`,
      description: `The project's ${path} as served: the file's and those written through the API.`,
      answers: { 200: { description: `The ${path}.`, json: Type.Object({ [list]: Type.Array(answerSchema) }) } },
      handler: async (request) => {
        const p = project(request);
        return { [list]: current(p, kind).map((item) => view(ctx, p, kind, item)) };
      },
    }),
    apiRoute<{ Params: Params }>({
      method: 'GET', path: `${base}/:name`, tag: 'Management', access: ACCESS_READ, errors: [notFound],
      summary: `Read a ${kind}`,
      request: { params },
      answers: { 200: { description: `The ${kind}, with its version.`, json: answerSchema, headers: ETAG } },
      handler: async (request, reply) => {
        const p = project(request);
        return answer(reply, view(ctx, p, kind, found(p, kind, request.params.name)));
      },
    }),
    apiRoute<{ Params: Params }>({
      method: 'PUT', path: `${base}/:name`, tag: 'Management', access: ACCESS_WRITE,
      errors: ['invalid_config', 'version_conflict', ...(kind === 'experience' ? ['invalid_request' as const] : []), ...(kind === 'metric' ? ['metric_name_taken' as const] : [])],
      summary: `Create or replace a ${kind}`,
      description: `Validated as the file is (400 \`invalid_config\` naming the field); the name may be left out of the body. `
        + 'Served by this node before the answer and by every other node within a second.'
        + (kind === 'experience' ? ' `?rerandomize=true` on an experiment that runs after the write starts a new phase that assigns everybody afresh.' : ''),
      request: {
        params,
        json: putBody(kind),
        headers: { 'If-Match': 'The version read (`"3"`): another current version is 412 `version_conflict`.', 'If-None-Match': '`*`: create only.' },
        ...(kind === 'experience' ? { query: Type.Object({ rerandomize: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])) }) } : {}),
      },
      answers: {
        200: { description: 'Replaced.', json: answerSchema, headers: ETAG },
        201: { description: 'Created.', json: answerSchema, headers: ETAG },
      },
      handler: async (request, reply) => {
        const p = project(request);
        const { name } = request.params;
        const item = validItem(p, kind, name, request.body);
        const outcome = await write(ctx, request, kind, name, item, request.headers['if-none-match']?.trim() === '*');
        const served = find(ctx.config.project(p.org, p.name) ?? p, kind, name) ?? item;
        reply.code(outcome.created ? 201 : 200);
        return answer(reply, { ...view(ctx, p, kind, served), version: outcome.version, source: 'api' });
      },
    }),
    apiRoute<{ Params: Params }>({
      method: 'DELETE', path: `${base}/:name`, tag: 'Management', access: ACCESS_WRITE,
      errors: [notFound, 'invalid_config', 'version_conflict', ...(kind === 'experience' ? [] : ['item_in_use' as const])],
      summary: `Delete a ${kind}`,
      description: kind === 'experience' ? 'It is no longer served (a file-defined one stays hidden).' : 'Refused while something uses it (409 `item_in_use`).',
      request: { params, headers: { 'If-Match': 'The version read: another current version is 412 `version_conflict`.' } },
      answers: { 204: { description: 'Deleted.' } },
      handler: async (request, reply) => {
        const p = project(request);
        const { name } = request.params;
        found(p, kind, name);
        await write(ctx, request, kind, name, null);
        return reply.code(204).send();
      },
    }),
  ];
}

/**
 * The management API under `/v1/{org}/projects/{project}` (admin keys only): experiences, metrics and feeds — list,
 * read with `ETag`, create or replace (`If-Match` optional; `If-None-Match: *` creates only), delete — and the audit
 * log. Items written here are stored in the database, win over the file's items of the same name, and are served by
 * this node before the answer and by every other node within a second (ManagedConfig).
 * Reads need a viewer, writes an editor (people and keys, an admin: access-routes.ts).
 */
export function managementRoutes(ctx: ManagementDeps): ApiRoute[] {
  return [
    ...(Object.keys(KINDS) as ItemKind[]).flatMap((kind) => kindRoutes(ctx, kind)),
    apiRoute<{ Params: ProjectParams; Querystring: Record<string, string | undefined> }>({
      method: 'GET', path: '/v1/:org/projects/:project/audit', tag: 'Management', access: ACCESS_READ, errors: ['invalid_request'],
      summary: 'The project\'s audit log',
      description: 'Its items\' changes (and automatic stops and reweights), its privacy requests and its webhook endpoints\' changes, newest first.',
      request: { query: AuditQuery },
      answers: { 200: { description: 'The entries.', json: AuditAnswer } },
      handler: async (request) => {
        const filter = auditFilter(request.query, PROJECT_KINDS);
        return { entries: await readAudit(ctx.storage, request.auth!.project.key, listLimit(request.query.limit, AUDIT_LIMIT), filter) };
      },
    }),
  ];
}

function answer(reply: FastifyReply, item: Item): Item {
  reply.header('etag', `"${String(item.version)}"`);
  return item;
}
