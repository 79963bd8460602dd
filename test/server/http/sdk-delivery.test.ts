// Delivery of the SDK at /svc/: precompressed by Accept-Encoding, ETag and 304, versioned paths immutable for a year,
// unversioned ones for five minutes. A root of its own with a tiny "build" (the real one is checked in test/build/).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { useApp } from '../helpers/use-test-app.js';

const SDK = `window.sdk = ${JSON.stringify('x'.repeat(2000))};`;
const CHUNK = `export default () => ({ name: ${JSON.stringify('y'.repeat(2000))} });`;

describe('SDK delivery at /svc/', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-delivery-'));
  before(() => {
    mkdirSync(join(root, 'dist'));
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'svc-sdk', version: '9.8.7' }));
    writeFileSync(join(root, 'dist', 'service.js'), SDK);
    writeFileSync(join(root, 'dist', 'service.js.br'), brotliCompressSync(SDK));
    writeFileSync(join(root, 'dist', 'service.js.gz'), gzipSync(SDK));
    // A build's chunks are in a folder named after their code (esbuild.config.mjs).
    mkdirSync(join(root, 'dist', 'chunks', 'abcd1234'), { recursive: true });
    writeFileSync(join(root, 'dist', 'chunks', 'abcd1234', 'experiences.js'), CHUNK);
    writeFileSync(join(root, 'dist', 'chunks', 'abcd1234', 'experiences.js.br'), brotliCompressSync(CHUNK));
    writeFileSync(join(root, 'dist', 'chunks', 'abcd1234', 'experiences.js.gz'), gzipSync(CHUNK));
    writeFileSync(join(root, 'dist', 'server.mjs'), 'secret();');
    mkdirSync(join(root, 'admin'));
    writeFileSync(join(root, 'admin', 'index.html'), '<!doctype html><title>svc admin</title>');
    writeFileSync(join(root, 'admin', 'admin-app.ts'), 'export {};');
  });
  const h = useApp(SQLITE_DRIVER, { staticRoot: root });
  after(() => rmSync(root, { recursive: true, force: true }));

  const get = (url: string, headers: Record<string, string> = {}) => h.app.inject({ method: 'GET', url, headers });

  it('sends brotli or gzip by Accept-Encoding, the plain file otherwise, and says it varies on it', async () => {
    const br = await get('/svc/service.js', { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.statusCode, 200);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.match(String(br.headers['content-type']), /javascript/);
    assert.match(String(br.headers.vary), /accept-encoding/i);
    assert.equal(brotliDecompressSync(br.rawPayload).toString('utf8'), SDK);

    const gz = await get('/svc/service.js', { 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gz.rawPayload).toString('utf8'), SDK);

    const plain = await get('/svc/service.js', { 'accept-encoding': 'identity' });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body, SDK);
    assert.match(String(plain.headers.vary), /accept-encoding/i);
    for (const res of [br, gz, plain]) assert.equal(res.headers.sourcemap, 'service.js.map');
  });

  it('answers a conditional request with its ETag with 304 and no body', async () => {
    const first = await get('/svc/service.js', { 'accept-encoding': 'br' });
    const etag = String(first.headers.etag);
    assert.ok(etag.length > 2, 'an ETag');
    const again = await get('/svc/service.js', { 'accept-encoding': 'br', 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.rawPayload.length, 0);
  });

  it('caches the unversioned path for five minutes and the versioned one for a year, immutable', async () => {
    const unversioned = await get('/svc/service.js');
    assert.equal(unversioned.headers['cache-control'], 'public, max-age=300');
    const versioned = await get('/svc/9.8.7/service.js', { 'accept-encoding': 'br' });
    assert.equal(versioned.statusCode, 200);
    assert.equal(versioned.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(brotliDecompressSync(versioned.rawPayload).toString('utf8'), SDK);
    const other = await get('/svc/1.0.0/service.js');
    assert.equal(other.statusCode, 404);
  });

  it('serves service.js\'s chunks beside it the same way: precompressed, with an ETag, immutable under the version', async () => {
    for (const [url, cacheControl] of [
      ['/svc/9.8.7/chunks/abcd1234/experiences.js', 'public, max-age=31536000, immutable'],
      ['/svc/chunks/abcd1234/experiences.js', 'public, max-age=300'],
    ] as const) {
      const br = await get(url, { 'accept-encoding': 'gzip, br' });
      assert.equal(br.statusCode, 200, url);
      assert.equal(br.headers['content-encoding'], 'br', url);
      assert.match(String(br.headers['content-type']), /javascript/, url);
      assert.match(String(br.headers.vary), /accept-encoding/i, url);
      assert.equal(br.headers['cache-control'], cacheControl, url);
      // import() asks for a module in CORS mode: a page on another origin than the service must be let read it.
      assert.equal(br.headers['access-control-allow-origin'], '*', url);
      // The file carries no sourceMappingURL comment: developer tools find its map from this header.
      assert.equal(br.headers.sourcemap, 'experiences.js.map', url);
      assert.equal(brotliDecompressSync(br.rawPayload).toString('utf8'), CHUNK, url);
      const gz = await get(url, { 'accept-encoding': 'gzip' });
      assert.equal(gunzipSync(gz.rawPayload).toString('utf8'), CHUNK, url);
      const again = await get(url, { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) });
      assert.equal(again.statusCode, 304, url);
    }
    assert.equal((await get('/svc/9.8.7/chunks/other000/experiences.js')).statusCode, 404);
  });

  it('serves the admin console\'s page at /admin/, never its TypeScript sources', async () => {
    const page = await get('/admin/');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /svc admin/);
    assert.equal((await get('/admin/admin-app.ts')).statusCode, 404);
  });

  it('never serves the service\'s own bundles, versioned or not', async () => {
    for (const url of ['/svc/server.mjs', '/svc/9.8.7/server.mjs']) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, url);
    }
  });
});
