// The CLI: wires the environment to buildApp and listens. Everything testable is in app.ts.
//   PORT (8787) · HOST (0.0.0.0) · DATA_DIR (./data → svc.db, SQLite) · DATABASE_URL (postgres://… → pg)
//   SVC_CONFIG (./svc.config.json) · TRUST_PROXY (how many proxies in front: 1 behind a load balancer) · LOG_LEVEL
//   (info) MAX_CONNECTIONS_PER_IP (256; 0 for none, the default with TRUST_PROXY)
//   SVC_FIRST_ADMIN and SVC_FIRST_ADMIN_PASSWORD (an email and password: made admin of SVC_FIRST_ADMIN_ORGANIZATION, or
//   of the only organization, when it has no admin yet)
//   PUBLIC_URL (the service's address as people open it: the base of the console links webhooks carry)
//   WEBHOOK_POLL_MS (how often this node looks for webhooks to send, 1000) · WEBHOOKS_ALLOW_LOOPBACK=1 (http and
//   loopback receivers allowed: tests and local trials only)
// SIGHUP reloads the config (a failed reload keeps the last good one); SIGTERM/SIGINT shut down gracefully.
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ServiceConfigFile } from './config/config-types.js';
import { hasAdmin, makeAdmin } from './management/first-admin.js';
import { emailOf } from './sessions/person-input.js';
import type { Storage } from './storage/storage.js';
import { buildApp } from './app.js';
import { ConfigError } from './config/config-error.js';
import { parseConnectionCap, parseProxyHops } from './http/connection-limits.js';
import { loadConfigFile } from './config/load-config.js';
import { unknownFields } from './config/unknown-fields.js';
import { openStorage } from './storage/open-storage.js';
import { SCHEMA } from './schema.js';

/** How long a graceful shutdown may take before the process exits anyway (orchestrators kill at 30 s). */
const SHUTDOWN_DEADLINE_MS = 25_000;

/** SVC_FIRST_ADMIN on start: the organization's first admin, when it has none yet (see the header). */
async function firstAdminFromEnv(app: FastifyInstance, storage: Storage, config: ServiceConfigFile): Promise<void> {
  const email = process.env.SVC_FIRST_ADMIN;
  if (!email) return;
  const orgs = Object.keys(config.organizations);
  const org = process.env.SVC_FIRST_ADMIN_ORGANIZATION ?? (orgs.length === 1 ? orgs[0]! : '');
  if (!Object.hasOwn(config.organizations, org)) {
    app.log.error({ organizations: orgs }, 'SVC_FIRST_ADMIN: set SVC_FIRST_ADMIN_ORGANIZATION to one of the organizations');
    return;
  }
  const password = process.env.SVC_FIRST_ADMIN_PASSWORD;
  if (!password) {
    // An invitation link is a secret: it goes to a terminal (npm run create-admin), never into the service's log.
    app.log.error('SVC_FIRST_ADMIN needs SVC_FIRST_ADMIN_PASSWORD; or run `npm run create-admin -- --email …` for an invitation link');
    return;
  }
  if (await hasAdmin(storage, org)) return;
  await makeAdmin(storage, { org, email: emailOf(email), password }, Date.now());
  app.log.info({ organization: org, email }, 'first admin added with the password given');
}

async function main(): Promise<void> {
  const configFile = resolve(process.env.SVC_CONFIG ?? './svc.config.json');
  let config;
  try {
    config = await loadConfigFile(configFile);
  } catch (error) {
    // Refuse to start on a bad file, naming the bad path: an operator fixes it before anything runs.
    process.stderr.write(`svc: invalid configuration ${configFile}: ${(error as Error).message}\n`);
    process.exit(1);
  }

  let cap: number | undefined;
  let proxies: number;
  let port: number;
  let guardrailIntervalMs: number | undefined;
  let banditIntervalMs: number | undefined;
  let webhookPollMs: number | undefined;
  try {
    guardrailIntervalMs = parseInterval(process.env.GUARDRAIL_INTERVAL_MS, 'GUARDRAIL_INTERVAL_MS');
    banditIntervalMs = parseInterval(process.env.BANDIT_INTERVAL_MS, 'BANDIT_INTERVAL_MS');
    webhookPollMs = parseInterval(process.env.WEBHOOK_POLL_MS, 'WEBHOOK_POLL_MS');
    cap = parseConnectionCap(process.env.MAX_CONNECTIONS_PER_IP);
    proxies = parseProxyHops(process.env.TRUST_PROXY);
    port = parsePort(process.env.PORT);
  } catch (error) {
    process.stderr.write(`svc: ${(error as Error).message}\n`);
    process.exit(1);
  }

  let storage;
  try {
    storage = await openStorage({
      dataDir: resolve(process.env.DATA_DIR ?? './data'),
      ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : {}),
    }, SCHEMA);
  } catch (error) {
    // One structured line an operator can act on (the server's own message: unreachable, refused, no such role…),
    // not a stack trace.
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${JSON.stringify({ level: 60, time: Date.now(), msg: 'svc: cannot open the database', error: message })}\n`);
    process.exit(1);
  }
  const app = await buildApp({
    config,
    storage,
    logger: { level: process.env.LOG_LEVEL ?? 'info' },
    staticRoot: process.cwd(),
    ...(proxies > 0 ? { trustProxy: proxies } : {}),
    processMetrics: true,
    warm: true,
    ...(cap !== undefined ? { connectionLimits: { maxConnectionsPerIp: cap } } : {}),
    ...(guardrailIntervalMs !== undefined ? { guardrailIntervalMs } : {}),
    ...(banditIntervalMs !== undefined ? { banditIntervalMs } : {}),
    webhooks: {
      ...(process.env.PUBLIC_URL ? { publicUrl: process.env.PUBLIC_URL } : {}),
      ...(webhookPollMs !== undefined ? { pollMs: webhookPollMs } : {}),
      allowLoopback: process.env.WEBHOOKS_ALLOW_LOOPBACK === '1',
    },
  });

  // A field the service does not know is ignored, and is most often a misspelt setting: said, not refused.
  const warnUnknown = (file: typeof config): void => {
    const fields = unknownFields(file);
    if (fields.length) app.log.warn({ file: configFile, fields }, 'configuration: unknown fields are ignored (a misspelt setting?)');
  };
  warnUnknown(config);
  for (const [org, orgConfig] of Object.entries(config.organizations)) {
    if (orgConfig.adminKeys?.length) {
      app.log.warn({ organization: org, keys: orgConfig.adminKeys.length }, 'admin keys in the configuration file act as admin and are named by their id in the audit: make named keys and people in the console (People and keys), then remove them from the file');
    }
  }
  await firstAdminFromEnv(app, storage, config);

  process.on('SIGHUP', () => {
    loadConfigFile(configFile)
      .then((next) => {
        // With the management API's items laid over it, as every node serves it (it throws when they contradict).
        app.svc.managed.replaceFile(next);
        app.log.info({ file: configFile }, 'configuration reloaded');
        warnUnknown(next);
      })
      .catch((error: unknown) => {
        const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
        app.log.error({ file: configFile, problem: message }, 'configuration reload failed; keeping the last good configuration');
      });
  });

  let closing = false;
  const shutdown = (signal: string): void => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Bounded: a request or a database that never answers must not keep the process from exiting.
    setTimeout(() => {
      app.log.error({ signal, afterMs: SHUTDOWN_DEADLINE_MS }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    // app.close() stops accepting, waits for in-flight requests; storage closes after the last one.
    app.close()
      .then(() => storage.close())
      .then(() => process.exit(0), (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  const host = process.env.HOST ?? '0.0.0.0';
  await app.listen({ port, host });
  app.log.info({ storage: storage.dialect, config: configFile }, 'svc service ready');
}

/** `PORT`: 8787 unless set; 0 asks the system for a free port. */
function parsePort(text: string | undefined): number {
  if (text === undefined || text === '') return 8787;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) throw new Error(`PORT must be a whole number from 0 to 65535, not ${JSON.stringify(text)}`);
  return Number(text);
}

main().catch((error: unknown) => {
  // A system error (the port taken, an address not found) is the operator's to fix: its message is enough. Anything
  // else is a defect, reported with its stack.
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  const systemError = typeof code === 'string' && /^E[A-Z]+$/.test(code);
  const text = error instanceof Error ? (systemError ? error.message : error.stack ?? error.message) : String(error);
  process.stderr.write(`svc: failed to start: ${text}\n`);
  process.exit(1);
});

/** A period in milliseconds from the environment: a whole number from 100 (absent: the default). */
function parseInterval(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 100) throw new Error(`${name} must be a whole number of milliseconds, at least 100 (got ${JSON.stringify(text)})`);
  return ms;
}
