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
  /** A socket with no traffic either way for this long is closed (a connection that never sends a byte). */
  idleTimeoutMs: number;
  /** An idle keep-alive socket between requests is closed after this; longer than load balancers' 60 s. */
  keepAliveTimeoutMs: number;
  /** Sockets one client address may hold open at once; 0 for no cap (behind a load balancer every client is one address). */
  maxConnectionsPerIp: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 15_000,
  requestTimeoutMs: 120_000,
  idleTimeoutMs: 30_000,
  keepAliveTimeoutMs: 72_000,
  maxConnectionsPerIp: 256,
};

/**
 * The Fastify server options that set the deadlines. Node checks the header and request deadlines on a timer
 * (30 s by default), so the timer runs at least as often as the header deadline for it to hold.
 */
export function deadlineOptions(limits: ConnectionLimits): {
  connectionTimeout: number; keepAliveTimeout: number; requestTimeout: number; http: ServerOptions;
} {
  return {
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    http: {
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
  };
}

/**
 * Closes at once each socket past `max` open from one address. Counted on `connection` and `close`, so the count is
 * of sockets, whatever they are doing; no library does this for Node's HTTP server.
 */
export function capConnectionsPerIp(server: Server, max: number): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
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
