// A webhook receiver in the test process: a node:http server on 127.0.0.1 that keeps every request it gets and
// answers each as the test says (a status, a redirect, or no answer at all); and the check of a request's signature by
// the Standard Webhooks reference library.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * How the receiver answers a request: a status, a status with headers, `hang` (never, until it closes), or `stall` (a
 * 200 begun, its body never ended).
 */
export type ReceiverAnswer = number | { status: number; headers: Record<string, string> } | 'hang' | 'stall';

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/** Starts a receiver; `answer` is told each request and how many came before it (and may take its time). */
export async function startReceiver(
  answer: (request: ReceivedRequest, index: number) => ReceiverAnswer | Promise<ReceiverAnswer> = () => 200, port = 0,
): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      void Promise.resolve(answer(request, received.length - 1)).then((answered) => reply(res, answered));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${bound}`,
    port: bound,
    received,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

function reply(res: ServerResponse, answer: ReceiverAnswer): void {
  if (answer === 'hang') return;
  if (answer === 'stall') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('o');
    return;
  }
  const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
  res.writeHead(status, { 'content-type': 'text/plain', ...headers });
  res.end(status >= 200 && status < 300 ? 'ok' : 'no');
}

/** The request's payload once its signature verified with `secret` (throws when it does not, or is too old). */
export function verified(secret: string, request: ReceivedRequest): unknown {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
  return new Webhook(secret).verify(request.body, headers);
}
