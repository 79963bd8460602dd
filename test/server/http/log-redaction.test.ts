// Secrets never reach the logs: the service's request log lines print URLs with `apiKey` values redacted.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { redactUrl } from '../../../server/http/log-redaction.js';
import { SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { useApp } from '../helpers/use-test-app.js';

const lines: string[] = [];
const stream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

describe('log redaction', () => {
  const h = useApp(SQLITE_DRIVER, { logger: { level: 'info', stream } });

  it('replaces apiKey query values in the request log lines, whatever the case or position', () => {
    assert.equal(redactUrl('/v1/a/projects/b/x?apiKey=srv1.s3cret'), '/v1/a/projects/b/x?apiKey=[redacted]');
    assert.equal(redactUrl('/x?metrics=a&APIKEY=k.s&dimension=device'), '/x?metrics=a&APIKEY=[redacted]&dimension=device');
    assert.equal(redactUrl('/x?apiKey=a.b&apiKey=c.d'), '/x?apiKey=[redacted]&apiKey=[redacted]');
    assert.equal(redactUrl('/x?notapiKey=1'), '/x?notapiKey=1');
    assert.equal(redactUrl('/x?writeKey=web1.p4ss&y=2'), '/x?writeKey=[redacted]&y=2');
    // Percent-encoded names are the same parameter to the query parser.
    assert.equal(redactUrl('/x?%61piKey=srv1.s3cret'), '/x?%61piKey=[redacted]');
    assert.equal(redactUrl('/x?a=1&api%4Bey=srv1.s3cret#f'), '/x?a=1&api%4Bey=[redacted]#f');
  });

  it('logs the requests of server callers without their keys', async () => {
    const choose = await h.app.inject({
      method: 'POST', url: '/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret',
      payload: { identification: { sourceId: 'web', profileId: 'p-log' }, names: ['welcome-note'] },
    });
    assert.equal(choose.statusCode, 200);
    const wrong = await h.app.inject({ method: 'GET', url: '/v1/acme/projects/shop/experiences/x/results?apiKey=srv1.guessed-secret' });
    assert.equal(wrong.statusCode, 401);
    const requestLines = lines.filter((l) => l.includes('/v1/acme/projects/shop/'));
    assert.ok(requestLines.length >= 2, `request log lines: ${requestLines.length}`);
    assert.ok(requestLines.some((l) => l.includes('apiKey=[redacted]')));
    for (const line of lines) assert.ok(!line.includes('s3cret') && !line.includes('guessed-secret'), line);
  });

  it('censors an Authorization header that a log call passes along', () => {
    h.app.log.warn({ headers: { authorization: 'Basic d2ViMTpwNHNz', host: 'x' } }, 'with headers');
    h.app.log.warn({ req: { headers: { authorization: 'Bearer adm1.s3cret' } } }, 'with a request');
    const logged = lines.filter((l) => l.includes('with headers') || l.includes('with a request'));
    assert.equal(logged.length, 2);
    for (const line of logged) {
      assert.ok(!line.includes('d2ViMTpwNHNz') && !line.includes('s3cret'), line);
      assert.match(line, /\[redacted\]/);
    }
  });
});
