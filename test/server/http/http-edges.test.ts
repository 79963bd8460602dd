// What reaches the service below the routes: HTTP the parser refuses, URLs the router refuses, bodies refused before
// they were read, sockets that never finish. A real listening server on each driver.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { RouteModule } from '../../../server/app.js';
import { capKey, DEFAULT_CONNECTION_LIMITS, parseConnectionCap, type ConnectionLimits } from '../../../server/http/connection-limits.js';
import { quoted } from '../../../server/errors/echo-input.js';
import { ERROR_CODES, type ErrorCode } from '../../../server/errors/error-codes.js';
import { makeEvent } from '../helpers/events.js';
import { API_KEY, hardeningConfig, WRITE_AUTH } from '../helpers/hardening-fixtures.js';
import { exchange, RawClient, type RawAnswer } from '../helpers/raw-http.js';
import { DRIVERS, type TestDriver } from '../helpers/storage-drivers.js';
import { useApp } from '../helpers/use-test-app.js';

const TRACK = '/v1/acme/projects/shop/sources/web/track';

/** A handler slower than every deadline of the suite below: deadlines are on receiving requests, not on answering. */
const slowRoute: RouteModule = (app) => {
  app.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1200));
    return { ok: true };
  });
};

function assertOurError(answer: RawAnswer | null, code: ErrorCode): void {
  assert.ok(answer, 'an answer before the socket closed');
  assert.equal(answer.status, ERROR_CODES[code].status, answer.body);
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
  assert.equal(answer.headers['x-content-type-options'], 'nosniff');
  const body = JSON.parse(answer.body) as { error: { code: string; message: string } };
  assert.deepEqual(Object.keys(body), ['error']);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
}

/** Builds and listens on a free port; answers the port. */
function useListeningApp(driver: TestDriver, limits: Partial<ConnectionLimits> = {}, routes: RouteModule[] = []): { app: () => FastifyInstance; port: () => number } {
  const h = useApp(driver, { config: hardeningConfig(), connectionLimits: limits, routes });
  let port = 0;
  before(async () => {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });
  return { app: () => h.app, port: () => port };
}

/** Resolves when `client`'s socket has closed, or fails after `ms` (a bound, so a socket left open fails the test). */
async function closesWithin(client: RawClient, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`socket still open after ${ms} ms`)), ms);
  });
  try {
    await Promise.race([client.closed, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function healthz(port: number): Promise<number | undefined> {
  const { answer } = await exchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  return answer?.status;
}

describe('HTTP edges: the per-address cap counts by address, IPv6 by its /64', () => {
  it('keys IPv4 addresses as they are, IPv4-mapped IPv6 as IPv4, IPv6 by its first 64 bits', () => {
    assert.equal(capKey('203.0.113.9'), '203.0.113.9');
    assert.equal(capKey('::ffff:203.0.113.9'), '203.0.113.9');
    assert.equal(capKey('2001:db8::1'), capKey('2001:0db8:0:0:ffff:1:2:3'));
    assert.notEqual(capKey('2001:db8:0:1::1'), capKey('2001:db8:0:2::1'));
  });

  it('takes MAX_CONNECTIONS_PER_IP as a whole number >= 0 and refuses anything else', () => {
    assert.equal(parseConnectionCap(undefined), undefined);
    assert.equal(parseConnectionCap('0'), 0);
    assert.equal(parseConnectionCap('512'), 512);
    for (const bad of ['abc', '-1', '1.5', ' 8']) assert.throws(() => parseConnectionCap(bad), /MAX_CONNECTIONS_PER_IP must be a whole number/);
  });
});

for (const driver of DRIVERS) {
  describe(`HTTP edges: every answer in our shape (${driver.name})`, () => {
    const server = useListeningApp(driver);

    // Spec as data: requests Node's HTTP parser refuses, answered by the service in its own shape.
    const PARSER_REFUSALS: { name: string; request: string; code: ErrorCode }[] = [
      { name: 'a bad request line', request: 'GARBAGE\r\n\r\n', code: 'bad_request' },
      { name: 'an invalid Content-Length', request: `POST ${TRACK} HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`, code: 'bad_request' },
      {
        name: 'Content-Length with chunked encoding',
        request: `POST ${TRACK} HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        code: 'bad_request',
      },
      {
        name: 'a bad chunk size',
        request: `POST ${TRACK} HTTP/1.1\r\nHost: x\r\nAuthorization: ${WRITE_AUTH}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
        code: 'bad_request',
      },
      { name: 'a 70 KB header', request: `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70 * 1024)}\r\n\r\n`, code: 'headers_too_large' },
    ];
    for (const r of PARSER_REFUSALS) {
      it(`answers ${r.name} with ${r.code} in our shape and closes the connection`, async () => {
        const { answer, closedByServer } = await exchange(server.port(), r.request);
        assertOurError(answer, r.code);
        assert.equal(closedByServer, true);
      });
    }

    it('answers a path segment over 100 characters with 414 path_too_long, without echoing it', async () => {
      const long = 'x'.repeat(150);
      const res = await server.app().inject({ method: 'POST', url: `/v1/acme/projects/${long}/sources/web/track` });
      assert.equal(res.statusCode, 414);
      assert.equal(res.json().error.code, 'path_too_long');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.ok(!res.body.includes(long));
    });

    it('answers a configured name of the longest allowed length (64) in a path as any other', async () => {
      const res = await server.app().inject({ method: 'POST', url: `/v1/acme/projects/${'p'.repeat(64)}/sources/web/track`, headers: { authorization: WRITE_AUTH }, payload: { batch: [makeEvent()] } });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().error.code, 'project_not_found');
    });

    it('answers a path that is not valid percent-encoding with 400 bad_request', async () => {
      const { answer } = await exchange(server.port(), 'GET /v1/%E0%A4%A/projects/shop HTTP/1.1\r\nHost: x\r\n\r\n');
      assertOurError(answer, 'bad_request');
      assert.ok(!answer?.body.includes('%E0'));
    });

    it('sends X-Content-Type-Options: nosniff on every answer: 200, 401, 404', async () => {
      const app = server.app();
      for (const res of [
        await app.inject({ method: 'GET', url: '/healthz' }),
        await app.inject({ method: 'POST', url: TRACK, payload: { batch: [] } }),
        await app.inject({ method: 'GET', url: '/nowhere' }),
      ]) {
        assert.equal(res.headers['x-content-type-options'], 'nosniff', `${res.statusCode} ${res.body}`);
      }
    });

    it('echoes input in messages quoted, escaped and cut short', async () => {
      const app = server.app();
      const name = `<script>${'x'.repeat(80)}`;
      const project = await app.inject({ method: 'POST', url: `/v1/acme/projects/${encodeURIComponent(name)}/sources/web/track`, headers: { authorization: WRITE_AUTH }, payload: { batch: [makeEvent()] } });
      assert.equal(project.json().error.code, 'project_not_found');
      assert.equal(project.json().error.message, `There is no project "<script>${'x'.repeat(56)}…" in organization "acme".`);
      const route = await app.inject({ method: 'GET', url: `/${'y'.repeat(100)}` });
      assert.equal(route.json().error.code, 'route_not_found');
      assert.equal(route.json().error.message, `No route for GET "/${'y'.repeat(63)}…".`);
    });

    it('cuts echoed input without leaving half of an emoji', () => {
      assert.equal(quoted(`${'x'.repeat(63)}😀yz`), `"${'x'.repeat(63)}…"`);
      assert.equal(quoted(`${'x'.repeat(62)}😀yz`), `"${'x'.repeat(62)}😀…"`);
    });

    it('reads and discards the rest of a body refused with 413: a client still sending reads the answer, and the connection serves its next request', async () => {
      const total = 3 * 1024 * 1024;
      const client = new RawClient(server.port());
      await client.connected();
      await client.write(`POST ${TRACK} HTTP/1.1\r\nHost: x\r\nAuthorization: ${WRITE_AUTH}\r\nContent-Type: application/json\r\nContent-Length: ${total}\r\n\r\n`);
      const answered = client.answer();
      // The body goes on after the answer is sent, as a browser's upload does.
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      for (let sent = 0; sent < total && !client.socket.destroyed; sent += chunk.length) await client.write(chunk);
      const answer = await answered;
      assertOurError(answer, 'payload_too_large');
      assert.notEqual(answer?.headers.connection, 'close');
      assert.equal(client.error, null, 'no reset while sending');
      await client.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      const next = await client.answer();
      assert.equal(next?.status, 200);
      client.destroy();
    });

    it('reads and discards the rest of an NDJSON catalog refused at its first line, and serves the next request', async () => {
      const good = `${JSON.stringify({ id: 'ok', title: 'x'.repeat(200) })}\n`;
      const lines = Math.ceil((2 * 1024 * 1024) / good.length);
      const first = `${JSON.stringify({ id: 'bad\u0000' })}\n`;
      const client = new RawClient(server.port());
      await client.connected();
      await client.write(`PUT /v1/acme/projects/shop/catalog?apiKey=${API_KEY} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${Buffer.byteLength(first) + lines * good.length}\r\n\r\n${first}`);
      const answered = client.answer();
      const chunk = good.repeat(256);
      for (let sent = 0; sent < lines && !client.socket.destroyed; sent += 256) await client.write(sent + 256 <= lines ? chunk : good.repeat(lines - sent));
      const answer = await answered;
      assertOurError(answer, 'invalid_product');
      assert.equal(client.error, null, 'no reset while sending');
      await client.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.equal((await client.answer())?.status, 200);
      client.destroy();
    });
  });

  describe(`HTTP edges: sockets that never finish are closed on their deadlines (${driver.name})`, () => {
    const limits = { headersTimeoutMs: 300, requestTimeoutMs: 800, keepAliveTimeoutMs: 500, maxConnectionsPerIp: 0 };
    // Registered before the app's hooks: the sockets close before the app waits for its connections to end.
    const clients: RawClient[] = [];
    after(() => {
      for (const c of clients) c.destroy();
    });
    const server = useListeningApp(driver, limits, [slowRoute]);
    // Generous bounds over the deadlines: a socket still open past one fails the test. Node checks the header and
    // request deadlines on a timer, so a socket can live up to one check interval past its deadline.
    const SLACK_MS = 2000;

    it('answers 408 and closes silent, slow-header and slow-body sockets while /healthz keeps answering', async () => {
      const port = server.port();
      const open = async (): Promise<RawClient> => {
        const client = new RawClient(port);
        clients.push(client);
        await client.connected();
        return client;
      };
      const idle = await Promise.all(Array.from({ length: 20 }, open));
      const slowHeaders = await Promise.all(Array.from({ length: 3 }, open));
      const slowBody = await Promise.all(Array.from({ length: 3 }, open));
      for (const c of slowHeaders) await c.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
      for (const c of slowBody) {
        await c.write(`POST ${TRACK} HTTP/1.1\r\nHost: x\r\nAuthorization: ${WRITE_AUTH}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
      }
      // A byte every 100 ms: the header and request deadlines end them, not silence.
      const trickle = setInterval(() => {
        for (const c of slowHeaders) if (!c.socket.destroyed) c.socket.write('X-Slow: 1\r\n');
        for (const c of slowBody) if (!c.socket.destroyed) c.socket.write(' ');
      }, 100);
      try {
        const statuses: (number | undefined)[] = [];
        const all = [...idle, ...slowHeaders, ...slowBody];
        const closedAll = Promise.all(all.map((c) => closesWithin(c, limits.requestTimeoutMs + SLACK_MS)));
        while (all.some((c) => !c.socket.destroyed)) {
          statuses.push(await healthz(port));
          await new Promise((r) => setTimeout(r, 50));
        }
        await closedAll;
        assert.ok(statuses.length > 0);
        assert.ok(statuses.every((s) => s === 200), `healthz answered ${statuses.join(', ')}`);
      } finally {
        clearInterval(trickle);
      }
      for (const c of [...idle, ...slowHeaders, ...slowBody]) {
        const answer = await c.answer();
        assertOurError(answer, 'request_timeout');
      }
    });

    it('a request refused before its body gets one answer, not a second one when its body then misses the deadline', async () => {
      const client = new RawClient(server.port());
      clients.push(client);
      await client.connected();
      await client.write(`POST ${TRACK} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
      const trickle = setInterval(() => {
        if (!client.socket.destroyed) client.socket.write(' ');
      }, 100);
      try {
        assertOurError(await client.answer(), 'missing_credentials');
        await closesWithin(client, limits.requestTimeoutMs + SLACK_MS);
      } finally {
        clearInterval(trickle);
      }
      assert.equal(client.received.length, 0, `nothing after the answer: ${client.received.toString()}`);
    });

    it('answers a handler slower than every deadline: the deadlines are on the request, not the answer', async () => {
      const { answer } = await exchange(server.port(), 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.equal(answer?.status, 200);
    });
  });

  describe(`HTTP edges: sockets per client address are capped (${driver.name})`, () => {
    // Registered before the app's hooks: the sockets close before the app waits for its connections to end.
    const clients: RawClient[] = [];
    after(() => {
      for (const c of clients) c.destroy();
    });
    const server = useListeningApp(driver, { maxConnectionsPerIp: 3 });

    it('closes a socket past the cap at once, and accepts again once one has closed', async () => {
      const open = async (): Promise<RawClient> => {
        const client = new RawClient(server.port());
        clients.push(client);
        await client.connected();
        return client;
      };
      const held = [await open(), await open(), await open()];
      const extra = await open();
      await closesWithin(extra, 2000);
      assert.equal(extra.received.length, 0);
      for (const c of held) assert.equal(c.socket.destroyed, false);
      held[0]!.destroy();
      await held[0]!.closed;
      // The server counts the close when it sees it: the next socket may race it, so ask until one is answered.
      let status: number | undefined;
      for (let i = 0; i < 20 && status === undefined; i++) status = await healthz(server.port());
      assert.equal(status, 200);
    });
  });
}

// On the shipped deadlines (15 s for headers). Node's own header deadline stops closing a socket that never sent a
// byte while other clients come and go mid-headers (seen on Node 20: such sockets stayed open for good), so an
// attacker could hold descriptors with silence. Storage plays no part: SQLite only.
describe('HTTP edges: silent sockets are closed on the header deadline whatever other clients do (shipped limits)', () => {
  const clients: RawClient[] = [];
  after(() => {
    for (const c of clients) c.destroy();
  });
  const server = useListeningApp(DRIVERS[0]!, { maxConnectionsPerIp: 0 });

  it('closes sockets that never sent a byte within the header deadline, beside churning slow-header and slow-body clients', { timeout: 60_000 }, async () => {
    const open = async (): Promise<RawClient> => {
      const client = new RawClient(server.port());
      clients.push(client);
      await client.connected();
      return client;
    };
    let stopped = false;
    // Slow-header clients that each give up after a second and come back: a byte every 200 ms meanwhile.
    const churn = async (): Promise<void> => {
      while (!stopped) {
        const c = await open();
        await c.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
        for (let i = 0; i < 5 && !stopped && !c.socket.destroyed; i++) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          if (!c.socket.destroyed) c.socket.write('X');
        }
        c.destroy();
      }
    };
    const churning = Array.from({ length: 5 }, churn);
    const slowBody = await Promise.all(Array.from({ length: 5 }, open));
    for (const c of slowBody) {
      await c.write(`POST ${TRACK} HTTP/1.1\r\nHost: x\r\nAuthorization: ${WRITE_AUTH}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`);
    }
    const trickle = setInterval(() => {
      for (const c of slowBody) if (!c.socket.destroyed) c.socket.write(' ');
    }, 2000);
    try {
      const silent = await Promise.all(Array.from({ length: 10 }, open));
      const { headersTimeoutMs } = DEFAULT_CONNECTION_LIMITS;
      // The deadline, and two seconds of slack for a busy machine.
      await Promise.all(silent.map((c) => closesWithin(c, headersTimeoutMs + 2000)));
      for (const c of silent) assertOurError(await c.answer(), 'request_timeout');
      assert.ok(slowBody.every((c) => !c.socket.destroyed), 'a slow body within the request deadline stays');
    } finally {
      stopped = true;
      clearInterval(trickle);
      await Promise.all(churning);
    }
  });
});
