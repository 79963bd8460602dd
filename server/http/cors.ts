import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ConfigStore } from '../config/config-store.js';

const PROJECT_PATH = /^\/v1\/([^/?#]+)\/projects\/([^/?#]+)\//;
/** Browsers may cache a preflight this long (Chromium caps it at 2 h). */
export const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/** The project a `/v1/{org}/projects/{project}/…` URL names (the preflight has no route params). */
export function projectOfUrl(url: string): { org: string; project: string } | null {
  const match = PROJECT_PATH.exec(url);
  if (!match?.[1] || !match[2]) return null;
  try {
    return { org: decodeURIComponent(match[1]), project: decodeURIComponent(match[2]) };
  } catch {
    return null;
  }
}

/** Whether `origin` may call the project's browser endpoints: any when no allow-list is configured. */
export function originAllowed(store: ConfigStore, url: string, origin: string): boolean {
  const names = projectOfUrl(url);
  const allowed = names ? store.project(names.org, names.project)?.config.allowedOrigins : undefined;
  return allowed === undefined || allowed.includes('*') || allowed.includes(origin);
}

const V1: FastifyCorsOptions = {
  methods: ['POST', 'OPTIONS'],
  allowedHeaders: ['Authorization', 'Content-Type'],
  maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  strictPreflight: false,
};
const V1_ALLOWED: FastifyCorsOptions = { ...V1, origin: true };
const V1_DENIED: FastifyCorsOptions = { ...V1, origin: false };
const NOT_V1: FastifyCorsOptions = { origin: false };

/**
 * CORS for the `/v1` endpoints: the request origin is reflected when the project allows it (any origin by
 * default: write keys are public), with a cacheable preflight that allows Authorization and Content-Type.
 */
export async function registerCors(app: FastifyInstance, store: ConfigStore): Promise<void> {
  await app.register(cors, {
    // Non-strict: a bare OPTIONS must not get the plugin's text/plain 400 (our errors are JSON only).
    strictPreflight: false,
    // Three constant answers built once: the delegator runs on every request, so it only picks one.
    delegator: (request: FastifyRequest, callback) => {
      const origin = request.headers.origin;
      if (!request.url.startsWith('/v1/')) callback(null, NOT_V1);
      else if (typeof origin !== 'string' || originAllowed(store, request.url, origin)) callback(null, V1_ALLOWED);
      else callback(null, V1_DENIED);
    },
  });
}
