import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 free right now: for a service that must know its own address before it listens (its public
 * URL in webhooks' links, an OIDC redirect URI).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
