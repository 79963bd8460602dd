// HTTP/1.1 over a plain socket, for what a well-behaved client library would never send: broken request lines,
// contradicting headers, bodies that trickle in, sockets that say nothing.
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The first complete answer in `data` (headers and a Content-Length body), or null while it is incomplete. */
export function parseAnswer(data: Buffer): { answer: RawAnswer; rest: Buffer } | null {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (data.length < end + 4 + length) return null;
  return {
    answer: { status: Number(statusLine.split(' ')[1]), headers, body: data.subarray(end + 4, end + 4 + length).toString('utf8') },
    rest: data.subarray(end + 4 + length),
  };
}

/** A socket to the server with what it has received and how it ended. */
export class RawClient {
  readonly socket: net.Socket;
  received: Buffer = Buffer.alloc(0);
  /** The socket's error code (EPIPE, ECONNRESET), if it had one. */
  error: string | null = null;
  readonly closed: Promise<void>;
  private waiters: (() => void)[] = [];

  constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.socket.on('error', (error: NodeJS.ErrnoException) => {
      this.error ??= error.code ?? error.message;
    });
    this.closed = new Promise((resolve) => this.socket.once('close', () => {
      resolve();
      for (const wake of this.waiters.splice(0)) wake();
    }));
  }

  connected(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!this.socket.connecting) resolve();
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
  }

  /** Writes and waits until the kernel took it (or the socket failed). */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) {
        resolve();
        return;
      }
      this.socket.write(data, () => resolve());
    });
  }

  /** The next complete answer, consumed; null when the socket closes first. */
  async answer(): Promise<RawAnswer | null> {
    for (;;) {
      const parsed = parseAnswer(this.received);
      if (parsed) {
        this.received = parsed.rest;
        return parsed.answer;
      }
      if (this.socket.destroyed) return null;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** Sends `request` on a new socket and answers the server's answer and whether it then closed the socket. */
export async function exchange(port: number, request: string | Buffer): Promise<{ answer: RawAnswer | null; closedByServer: boolean }> {
  const client = new RawClient(port);
  await client.connected();
  await client.write(request);
  const answer = await client.answer();
  const closedByServer = await Promise.race([client.closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 2000))]);
  client.destroy();
  return { answer, closedByServer };
}
