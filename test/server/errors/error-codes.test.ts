// Every error code is documented, maps to one status, and answers are always `{error:{code, message}}`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ERROR_CODES, type ErrorCode } from '../../../server/errors/error-codes.js';
import { SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { basic } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const DOC = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'errors.md'), 'utf8');

describe('error codes', () => {
  for (const [code, info] of Object.entries(ERROR_CODES)) {
    it(`documents ${code} with its status in docs/errors.md`, () => {
      assert.match(code, /^[a-z]+(_[a-z]+)*$/);
      assert.ok(DOC.includes(`| \`${code}\` | ${info.status} |`), `docs/errors.md lacks a row for ${code} (${info.status})`);
    });
  }

  const h = useApp(SQLITE_DRIVER);

  const track = '/v1/acme/projects/shop/sources/web/track';
  const REQUESTS: { name: string; method: 'GET' | 'POST' | 'PUT'; url: string; headers?: Record<string, string>; payload?: string }[] = [
    { name: 'unknown route', method: 'GET', url: '/nope' },
    { name: 'wrong method', method: 'PUT', url: track },
    { name: 'broken JSON', method: 'POST', url: track, headers: { authorization: basic('web1.p4ss'), 'content-type': 'application/json' }, payload: '{' },
    { name: 'empty JSON body', method: 'POST', url: track, headers: { authorization: basic('web1.p4ss'), 'content-type': 'application/json' }, payload: '' },
    { name: 'XML', method: 'POST', url: track, headers: { authorization: basic('web1.p4ss'), 'content-type': 'application/xml' }, payload: '<a/>' },
    { name: 'no key', method: 'POST', url: track, headers: { 'content-type': 'application/json' }, payload: '{}' },
  ];
  for (const r of REQUESTS) {
    it(`answers JSON {error:{code, message}} with the code's status, no stack trace: ${r.name}`, async () => {
      const res = await h.app.inject({ method: r.method, url: r.url, headers: r.headers ?? {}, ...(r.payload !== undefined ? { payload: r.payload } : {}) });
      assert.ok(res.statusCode >= 400);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      const body = res.json() as { error: { code: ErrorCode; message: string } };
      assert.deepEqual(Object.keys(body), ['error']);
      assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message']);
      assert.equal(ERROR_CODES[body.error.code]?.status, res.statusCode);
      assert.doesNotMatch(res.body, /at .*\.(ts|js):\d+|<html/i);
    });
  }
});
