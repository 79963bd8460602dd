import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  CreatedWebhookSchema, DeliveriesQuery, ResendAnswer, TestAnswer, WebhookBody, WebhookDeliveryList, WebhookEndpointSchema, WebhookList,
  type WebhookEndpoint,
} from '../../wire/api/webhook-schema.js';
import { actorOf } from '../auth/management-caller.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import { ifMatchVersion } from '../http/if-match.js';
import { listLimit } from '../http/list-limit.js';
import type { ProjectParams } from '../http/project-endpoint.js';
import type { SqlProgram } from '../storage/sql-program.js';
import type { Storage } from '../storage/storage.js';
import type { AddressPolicy } from './address-guard.js';
import { listDeliveries, queueTestEvent, resendDelivery } from './endpoint-deliveries.js';
import { endpointFields } from './endpoint-input.js';
import {
  createEndpoint, deleteEndpoint, listEndpoints, notFound, readEndpoint, replaceEndpoint, type AppendAudit, type EndpointWriter,
} from './endpoint-store.js';

/** What the webhooks routes use of the service. */
export interface WebhookRouteDeps {
  storage: Storage;
  now: () => number;
  /** Which URLs an endpoint may have (the service's webhook settings). */
  webhooks: AddressPolicy;
  /** The audit log's writer (management's appendAudit). */
  audit: AppendAudit;
}

type IdParams = ProjectParams & { id: string };

// Admins only, people and keys: an endpoint's URL can itself be a secret (Slack's incoming webhooks).
const ACCESS = { kind: 'project', keys: ['adminKey'], role: 'admin' } as const;
const TAG = 'Webhooks';
const DELIVERIES_LIMIT = { default: 50, max: 200 };
const ID = { id: { description: 'The endpoint\'s id (`ep_…`).' } };
const ETAG = { ETag: 'The endpoint\'s version, `"<version>"`: send it back as `If-Match`.' };
const IF_MATCH = { 'If-Match': 'The version read (`"3"`): another current version is 412 `version_conflict`.' };
const BODY_TEXT = 'Checked whole before anything is stored (400 `invalid_webhook` naming the field): the URL must be https and its host '
  + 'resolve only to public addresses; `events` lists known types, each once.';

const project = (request: FastifyRequest): string => request.auth!.project.key;

function withETag(reply: FastifyReply, endpoint: WebhookEndpoint): WebhookEndpoint {
  reply.header('etag', `"${endpoint.version}"`);
  return endpoint;
}

/** `?before=`: a delivery id, absent for the first page. */
function beforeOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw new ServiceError('invalid_request', 'before: must be a delivery id (a positive whole number)');
  return Number(raw);
}

/** A delivery id in a path: a positive whole number, else no delivery of the endpoint. */
function deliveryIdOf(raw: string, endpointId: string): number {
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw new ServiceError('webhook_not_found', `The webhook endpoint ${quoted(endpointId)} has no delivery ${quoted(raw)}.`);
  return Number(raw);
}

/**
 * A project's webhook endpoints under `/v1/{org}/projects/{project}/webhooks` (admins only): list, create (the
 * signing secret answered this once), read with `ETag`, replace (`If-Match` optional), delete; each endpoint's
 * delivery log, a test event sent to it alone, and a delivery sent again. Writes are audited (kind `webhook`) in their
 * transaction.
 */
export function webhookRoutes(ctx: WebhookRouteDeps): ApiRoute[] {
  const base = '/v1/:org/projects/:project/webhooks';
  const writer = (request: FastifyRequest): EndpointWriter => ({
    at: ctx.now(), keyId: request.auth!.key.id, actor: actorOf(request, request.auth!.key), audit: ctx.audit,
  });
  /** The endpoint in the path, or 404, inside the program of the request. */
  const existing = function* (request: FastifyRequest<{ Params: IdParams }>): SqlProgram<WebhookEndpoint> {
    const endpoint = yield* readEndpoint(project(request), request.params.id);
    if (endpoint === null) notFound(request.params.id);
    return endpoint;
  };
  return [
    apiRoute<{ Params: ProjectParams }>({
      method: 'GET', path: base, tag: TAG, access: ACCESS, errors: [],
      summary: 'List the webhook endpoints',
      answers: { 200: { description: 'The endpoints, oldest first, without their secrets.', json: WebhookList } },
      handler: async (request) => ({ webhooks: await ctx.storage.run(() => listEndpoints(project(request))) }),
    }),
    apiRoute<{ Params: ProjectParams }>({
      method: 'POST', path: base, tag: TAG, access: ACCESS, errors: ['invalid_webhook'],
      summary: 'Create a webhook endpoint',
      description: `${BODY_TEXT} The answer carries the signing secret (\`whsec_…\`), which is never answered again.`,
      request: { json: WebhookBody },
      answers: {
        201: { description: 'Created, with its secret.', json: CreatedWebhookSchema, headers: { ...ETAG, Location: 'The endpoint\'s address.' } },
      },
      handler: async (request, reply) => {
        const fields = await endpointFields(request.body, ctx.webhooks);
        const by = writer(request);
        const { endpoint, secret } = await ctx.storage.transaction(() => createEndpoint(project(request), fields, by));
        const { org, name } = request.auth!.project;
        reply.code(201).header('location', `/v1/${org}/projects/${name}/webhooks/${endpoint.id}`);
        return { ...withETag(reply, endpoint), secret };
      },
    }),
    apiRoute<{ Params: IdParams }>({
      method: 'GET', path: `${base}/:id`, tag: TAG, access: ACCESS, errors: ['webhook_not_found'],
      summary: 'Read a webhook endpoint',
      request: { params: ID },
      answers: { 200: { description: 'The endpoint, without its secret.', json: WebhookEndpointSchema, headers: ETAG } },
      handler: async (request, reply) => withETag(reply, await ctx.storage.run(() => existing(request))),
    }),
    apiRoute<{ Params: IdParams }>({
      method: 'PUT', path: `${base}/:id`, tag: TAG, access: ACCESS, errors: ['invalid_webhook', 'webhook_not_found', 'version_conflict'],
      summary: 'Replace a webhook endpoint',
      description: `The whole endpoint as a POST gives it; its secret stays. ${BODY_TEXT} Enabled, it is no longer marked failing or `
        + 'disabled by the service; disabled, its pending deliveries are given up.',
      request: { params: ID, json: WebhookBody, headers: IF_MATCH },
      answers: { 200: { description: 'Replaced.', json: WebhookEndpointSchema, headers: ETAG } },
      handler: async (request, reply) => {
        const fields = await endpointFields(request.body, ctx.webhooks);
        const by = writer(request);
        const endpoint = await ctx.storage.transaction(() => replaceEndpoint(project(request), request.params.id, fields, ifMatchVersion(request), by));
        return withETag(reply, endpoint);
      },
    }),
    apiRoute<{ Params: IdParams }>({
      method: 'DELETE', path: `${base}/:id`, tag: TAG, access: ACCESS, errors: ['webhook_not_found', 'version_conflict'],
      summary: 'Delete a webhook endpoint',
      description: 'Its pending deliveries are given up.',
      request: { params: ID, headers: IF_MATCH },
      answers: { 204: { description: 'Deleted.' } },
      handler: async (request, reply) => {
        const by = writer(request);
        await ctx.storage.transaction(() => deleteEndpoint(project(request), request.params.id, ifMatchVersion(request), by));
        return reply.code(204).send();
      },
    }),
    apiRoute<{ Params: IdParams; Querystring: { limit?: string; before?: string } }>({
      method: 'GET', path: `${base}/:id/deliveries`, tag: TAG, access: ACCESS, errors: ['webhook_not_found', 'invalid_request'],
      summary: 'An endpoint\'s delivery log',
      description: 'Each event sent (or being sent) to it: status, attempts, the last answer\'s status and latency, the next attempt.',
      request: { params: ID, query: DeliveriesQuery },
      answers: { 200: { description: 'Newest first; `before` the last id read gives the next page.', json: WebhookDeliveryList } },
      handler: async (request) => {
        const limit = listLimit(request.query.limit, DELIVERIES_LIMIT);
        const before = beforeOf(request.query.before);
        return {
          deliveries: await ctx.storage.run(function* () {
            const endpoint = yield* existing(request);
            return yield* listDeliveries(project(request), endpoint.id, limit, before);
          }),
        };
      },
    }),
    apiRoute<{ Params: IdParams }>({
      method: 'POST', path: `${base}/:id/test`, tag: TAG, access: ACCESS, errors: ['webhook_not_found'],
      summary: 'Send a test event',
      description: 'A `webhook.test` event queued to this endpoint alone, whatever events it asked for, even disabled.',
      request: { params: ID },
      answers: { 202: { description: 'Queued; its delivery shows in the log.', json: TestAnswer } },
      handler: async (request, reply) => {
        const at = ctx.now();
        const queued = await ctx.storage.transaction(function* () {
          const endpoint = yield* existing(request);
          return yield* queueTestEvent(project(request), endpoint.id, at);
        });
        reply.code(202);
        return queued;
      },
    }),
    apiRoute<{ Params: IdParams & { deliveryId: string } }>({
      method: 'POST', path: `${base}/:id/deliveries/:deliveryId/resend`, tag: TAG, access: ACCESS, errors: ['webhook_not_found'],
      summary: 'Send a delivery again',
      description: 'The same message (the same `webhook-id`), due now, its 24 hours of retries starting over.',
      request: { params: { ...ID, deliveryId: { description: 'The delivery\'s id, from the log.' } } },
      answers: { 202: { description: 'Queued again.', json: ResendAnswer } },
      handler: async (request, reply) => {
        const at = ctx.now();
        const id = deliveryIdOf(request.params.deliveryId, request.params.id);
        await ctx.storage.transaction(function* () {
          const endpoint = yield* existing(request);
          yield* resendDelivery(project(request), endpoint.id, id, at);
        });
        reply.code(202);
        return { deliveryId: id };
      },
    }),
  ];
}
