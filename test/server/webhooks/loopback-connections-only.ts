// A test's promise that no packet leaves 127.0.0.0/8, kept even when the code under test is broken: every socket's
// connect (net, tls, http, fetch all go through it) is checked before it happens, and one aimed anywhere else throws
// instead of connecting and is recorded, so the test fails.
import net from 'node:net';

/** Where a connect() call aims: a host, or an IPC path (a local socket file). */
function targetOf(args: unknown[]): { host: string } | { path: string } {
  // net.connect() and tls.connect() hand their arguments on as one normalized array.
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (typeof first === 'object' && first !== null) {
    const options = first as { host?: string; path?: string };
    return options.path !== undefined ? { path: options.path } : { host: options.host ?? 'localhost' };
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return { path: first };
  return { host: typeof args[1] === 'string' ? args[1] : 'localhost' };
}

export interface ConnectionGuard {
  /** The hosts a connection was refused to, in order. */
  readonly refused: string[];
  /** Puts connect() back as it was. */
  restore(): void;
}

/**
 * Lets sockets connect to IPv4 loopback addresses (127.0.0.0/8) written as such, and to local socket files; any other
 * target, a host name included (it would be resolved by the system), throws before a packet is sent.
 * @example const guard = loopbackConnectionsOnly(); … assert.deepEqual(guard.refused, []); guard.restore();
 */
export function loopbackConnectionsOnly(): ConnectionGuard {
  const original = net.Socket.prototype.connect;
  const refused: string[] = [];
  net.Socket.prototype.connect = function connect(this: net.Socket, ...args: unknown[]) {
    const target = targetOf(args);
    if ('host' in target && !(net.isIPv4(target.host) && target.host.startsWith('127.'))) {
      refused.push(target.host);
      throw new Error(`a test tried to connect to ${target.host}: only 127.0.0.0/8 may be reached`);
    }
    return original.apply(this, args as Parameters<typeof original>);
  } as typeof original;
  return {
    refused,
    restore: () => {
      net.Socket.prototype.connect = original;
    },
  };
}
