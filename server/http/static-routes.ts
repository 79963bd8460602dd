import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

/** How long a browser or CDN keeps an unversioned SDK file (`/svc/service.js`) before asking again. */
export const UNVERSIONED_MAX_AGE_SECONDS = 300;
/** A versioned SDK file (`/svc/<version>/service.js`) never changes: a year, immutable. */
export const VERSIONED_MAX_AGE_SECONDS = 31_536_000;

// dist/ also holds the service's own bundles (the server and its threads' entries): browsers get the SDK builds only.
// The build names every service bundle `.mjs` and no SDK file so, so a new thread entry is never served by mistake.
const SERVICE_BUNDLE = /\.mjs(\.map)?$/;

/** The package's version (the versioned SDK path), or null without a readable package.json at the root. */
function packageVersion(root: string): string | null {
  try {
    const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown }).version;
    return typeof version === 'string' && /^[0-9A-Za-z.+-]+$/.test(version) ? version : null;
  } catch {
    return null;
  }
}

/**
 * The demo page at `/` (demo/), the admin console at `/admin/` (admin/) and the SDK bundles at `/svc/` (dist/), from the
 * repository root.
 * SDK files go out precompressed (the build writes `.br` and `.gz` beside each bundle; the client's `Accept-Encoding`
 * chooses, with `Vary: Accept-Encoding`), readable from any origin (service.js's chunks are ES modules, fetched in
 * CORS mode), with an `ETag` that conditional requests answer 304 to and a `SourceMap` header naming the file's map.
 * `/svc/<version>/…` (the package's version) is cacheable for a year and immutable; `/svc/…` for five minutes, so a page
 * that links it picks up a new release soon.
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
  // The admin console's page; its script is dist/svc-admin.js, served at /svc/ like the other builds.
  const admin = resolve(join(root, 'admin'));
  if (existsSync(admin)) {
    await app.register(fastifyStatic, {
      root: admin, prefix: '/admin/', index: ['index.html'], decorateReply: !decorated,
      // The folder also holds the console's TypeScript sources and tests: only the page and its assets are served.
      allowedPath: (pathName: string) => /^\/(?:[\w-]+\.(?:html|css|svg))?$/.test(pathName),
    });
    decorated = true;
  }
  if (!existsSync(dist)) return;
  const sdk = {
    root: dist,
    preCompressed: true,
    allowedPath: (pathName: string) => !SERVICE_BUNDLE.test(pathName),
    setHeaders: (res: { setHeader(name: string, value: string): unknown }, path: string) => {
      // The body depends on Accept-Encoding: caches must keep one copy per encoding.
      res.setHeader('Vary', 'Accept-Encoding');
      // The bundles carry no `//# sourceMappingURL` comment (bytes every visitor would fetch): developer tools find
      // the map beside the file from this header instead.
      const file = basename(path).replace(/\.(br|gz)$/, '');
      if (file.endsWith('.js')) res.setHeader('SourceMap', `${file}.map`);
      // service.js fetches its chunks with import(), which asks in CORS mode: a page on any origin must be let in.
      res.setHeader('Access-Control-Allow-Origin', '*');
    },
  };
  await app.register(fastifyStatic, {
    ...sdk, prefix: '/svc/', decorateReply: !decorated, maxAge: UNVERSIONED_MAX_AGE_SECONDS * 1000,
  });
  const version = packageVersion(root);
  if (version !== null) {
    await app.register(fastifyStatic, {
      ...sdk, prefix: `/svc/${version}/`, decorateReply: false, maxAge: VERSIONED_MAX_AGE_SECONDS * 1000, immutable: true,
    });
  }
}
