import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The demo page at `/` (demo/) and the SDK bundles at `/svc/` (dist/), from the repository root.
 * Directories that do not exist yet are skipped (a fresh clone before `npm run build`).
 */
export async function staticRoutes(app: FastifyInstance, root: string): Promise<void> {
  const demo = resolve(join(root, 'demo'));
  const dist = resolve(join(root, 'dist'));
  let decorated = false;
  if (existsSync(demo)) {
    await app.register(fastifyStatic, { root: demo, prefix: '/', index: ['index.html'], decorateReply: true });
    decorated = true;
  }
  if (existsSync(dist)) {
    await app.register(fastifyStatic, {
      root: dist,
      prefix: '/svc/',
      decorateReply: !decorated,
      // dist/ also holds the service's own bundles (server, Choose writer thread): browsers get the SDK builds only.
      allowedPath: (pathName) => !/(^|\/)(server|choose-writer)\.mjs(\.map)?$/.test(pathName),
    });
  }
}
