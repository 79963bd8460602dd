import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

// Deadlines and caps for sockets, so that connections which never finish a request cannot pile up until the
// process runs out of descriptors (and `/healthz` stops answering). Fastify's defaults leave the request and socket
// deadlines off. The values are chosen for the slowest client we serve: a phone on a poor mobile link sends a
// request's few hundred bytes of headers in well under a second and a 1 MiB batch in about half a minute; a
// server-side catalog upload of 64 MiB needs ≈ 5 Mbit/s to finish in the request deadline.

export interface ConnectionLimits {
  /** A request's headers must have arrived this long after its first byte (Node's `headersTimeout`): slowloris. */
  headersTimeoutMs: number;
  /** The whole request, body included, must have arrived within this (Node's `requestTimeout`). */
  requestTimeoutMs: number;
  /** An idle keep-alive socket between requests is closed after this; longer than load balancers' 60 s. */
  keepAliveTimeoutMs: number;
  /**
   * Sockets one client address may hold open at once; 0 for no cap (behind a load balancer every client is one
   * address).
   */
  maxConnectionsPerIp: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 15_000,
  requestTimeoutMs: 120_000,
  keepAliveTimeoutMs: 72_000,
  maxConnectionsPerIp: 256,
};

/**
 * The Fastify server options that set the deadlines. A socket that never sends a byte misses the header deadline
 * too. No deadline is set on silence as such (Fastify's `connectionTimeout`): it would also cut a slow handler off
 * from its client mid-answer. Node checks the header and request deadlines on a timer (30 s by default), so the
 * timer runs at least as often as the header deadline for it to hold.
 */
export function deadlineOptions(limits: ConnectionLimits): { keepAliveTimeout: number; requestTimeout: number; http: ServerOptions } {
  return {
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    http: {
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
  };
}

/**
 * What the cap counts sockets by: an IPv4 address, or an IPv6 address's /64 prefix (one host is commonly given a
 * whole /64, so counting single IPv6 addresses would cap nobody).
 * @example capKey('2001:db8::1') // → '2001:db8:0:0::/64'
 */
export function capKey(address: string): string {
  if (!address.includes(':')) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const [head = '', tail = ''] = address.split('%')[0]!.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...new Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/**
 * The cap from the environment's text: a whole number ≥ 0 (0: no cap), or undefined when not set.
 * @throws Error naming the variable when the text is anything else.
 */
export function parseConnectionCap(text: string | undefined, name = 'MAX_CONNECTIONS_PER_IP'): number | undefined {
  if (text === undefined || text === '') return undefined;
  if (!/^\d+$/.test(text)) throw new Error(`${name} must be a whole number >= 0 (0 for no cap), not ${JSON.stringify(text)}`);
  return Number(text);
}

/**
 * `TRUST_PROXY`: how many proxies stand in front (0 or unset: none). `true` reads as 1, as it did when the variable
 * was a switch.
 * @example parseProxyHops('1') // → 1
 */
export function parseProxyHops(text: string | undefined): number {
  if (text === undefined || text === '' || text === 'false') return 0;
  if (text === 'true') return 1;
  if (!/^\d{1,2}$/.test(text)) throw new Error(`TRUST_PROXY must be the number of proxies in front (1 behind a load balancer), not ${JSON.stringify(text)}`);
  return Number(text);
}

/**
 * Closes at once each socket past `max` open from one address (capKey). Counted on `connection` and `close`, so the
 * count is of sockets, whatever they are doing; no library does this for Node's HTTP server.
 */
export function capConnectionsPerIp(server: Server, max: number): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = capKey(socket.remoteAddress ?? '');
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
