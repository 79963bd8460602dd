// A client that goes away mid-request (a tab closed during an upload, a reset, its own timeout) is not a fault of
// ours: it is logged at info with the request id, never at error level, and never taken for a database outage (the
// body's stream fails with ECONNRESET, the code pg's lost connections carry too). A real listening server.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { before, describe, it } from 'node:test';
import type { AddressInfo } from 'node:net';
import { hardeningConfig, WRITE_AUTH } from '../helpers/hardening-fixtures.js';
import { RawClient } from '../helpers/raw-http.js';
import { SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { useApp } from '../helpers/use-test-app.js';

interface LogLine {
  level: number;
  reqId?: string;
  msg: string;
}

const lines: LogLine[] = [];
const stream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(text) as LogLine);
    done();
  },
});

const PATHS = ['/v1/acme/projects/shop/sources/web/track', '/v1/acme/projects/shop/optimization/choose-api', '/v1/acme/projects/shop/consents/data'];

describe('client aborts are logged at info, not as errors', () => {
  const h = useApp(SQLITE_DRIVER, { config: hardeningConfig(), logger: { level: 'info', stream } });
  let port = 0;
  before(async () => {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });

  /** Sends the headers and part of a 1,000-byte body, then closes (`reset`: a TCP reset rather than a FIN). */
  async function abandon(path: string, reset: boolean): Promise<void> {
    const client = new RawClient(port);
    await client.connected();
    await client.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${WRITE_AUTH}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"batch":[`);
    // The server has started reading the body once it logged the request's arrival.
    const id = `req-${lines.filter((l) => l.msg === 'incoming request').length + 1}`;
    for (let waited = 0; !lines.some((l) => l.msg === 'incoming request' && l.reqId === id); waited += 10) {
      assert.ok(waited < 5000, `the server never logged ${id}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    if (reset) client.socket.resetAndDestroy();
    else client.destroy();
  }

  it('closed mid-body, by FIN or reset, on every body-reading endpoint: info lines with the request id, no error line', async () => {
    const before = lines.length;
    let abandoned = 0;
    for (const path of PATHS) {
      for (const reset of [false, true]) {
        await abandon(path, reset);
        abandoned++;
      }
    }
    const logged = (): LogLine[] => lines.slice(before).filter((l) => l.msg === 'client closed the connection before the request arrived');
    // Each abandoned request is logged once its closed socket is noticed: a few milliseconds; 5 s bounds the wait.
    for (let waited = 0; logged().length < abandoned && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(logged().length, abandoned, 'one info line per abandoned request');
    for (const line of logged()) {
      assert.equal(line.level, 30, 'info');
      assert.match(line.reqId ?? '', /^req-\d+$/);
    }
    const errors = lines.slice(before).filter((l) => l.level >= 50);
    assert.deepEqual(errors, [], 'no error-level line');
    // The service still answers, and was not taken to be without its database.
    const health = await h.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(health.statusCode, 200);
  });
});
