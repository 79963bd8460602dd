import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { basic } from './test-config.js';

// The privacy tests' calls to the test config's shop (acme/shop): a browser's writes, and an admin's privacy requests.

export const PRIVACY = '/v1/acme/projects/shop/privacy';
export const BROWSER = { authorization: basic('web1.p4ss') };
export const ADMIN = { authorization: 'Bearer adm1.s3cret' };

/** POSTs `payload` (as the browser by default) and asserts it was accepted. */
export async function send(app: FastifyInstance, url: string, payload: unknown, headers: Record<string, string> = BROWSER) {
  const res = await app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
  assert.ok(res.statusCode < 300, `${url}: ${res.statusCode} ${res.body}`);
  return res.json() as Record<string, unknown>;
}

/** POSTs a privacy request and reads it until it is done, through the states it may pass. */
export async function requestDone(app: FastifyInstance, kind: 'erasures' | 'exports', body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const created = await app.inject({ method: 'POST', url: `${PRIVACY}/${kind}`, headers: ADMIN, payload: body });
  assert.equal(created.statusCode, 202, created.body);
  const { id, status } = created.json() as { id: string; status: string };
  assert.equal(status, 'received');
  for (let polls = 0; ; polls++) {
    assert.ok(polls < 2000, 'the request did not finish: gave up polling');
    const res = await app.inject({ method: 'GET', url: `${PRIVACY}/${kind}/${id}`, headers: ADMIN });
    assert.equal(res.statusCode, 200, res.body);
    const answer = res.json() as Record<string, unknown>;
    if (answer.status === 'done') return answer;
    assert.ok(answer.status === 'received' || answer.status === 'running', String(answer.status));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
