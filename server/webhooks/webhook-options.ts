import { systemLookup, type AddressPolicy, type HostLookup } from './address-guard.js';

// How this node sends webhooks: where the console links point, which addresses it may reach, and its delivery rhythm.

export interface WebhookOptions {
  /** The service's public URL, the base of every console link in a payload (default `http://localhost:8787`). */
  publicUrl?: string;
  /** How host names resolve (tests inject one that answers any address, so no packet leaves the machine). */
  lookup?: HostLookup;
  /** http URLs and loopback addresses allowed (tests; `WEBHOOKS_ALLOW_LOOPBACK=1`). Default false. */
  allowLoopback?: boolean;
  /**
   * Whether this node sends webhooks (default true). Off, it still queues them, and the nodes that send deliver them:
   * tests of the endpoints' API alone, whose endpoints point at addresses nothing may reach.
   */
  deliver?: boolean;
  /** How often this node looks for due deliveries (default 1 s). */
  pollMs?: number;
  /** One attempt's deadline, connection to answer (default 10 s). */
  timeoutMs?: number;
  /** How long a node holds a delivery it is sending before another may take it (default 60 s; above `timeoutMs`). */
  leaseMs?: number;
  /** How long a delivery is retried before it is given up, and an endpoint failing this long is disabled (24 h). */
  retryForMs?: number;
  /** The first retry's delay, doubled each attempt (default 5 s, at most 1 h between attempts), with jitter. */
  firstRetryMs?: number;
}

export type WebhookSettings = Required<Omit<WebhookOptions, 'lookup' | 'allowLoopback'>> & AddressPolicy;

/** The options with their defaults; `publicUrl` without a trailing slash. */
export function webhookSettings(options: WebhookOptions = {}): WebhookSettings {
  return {
    publicUrl: (options.publicUrl ?? 'http://localhost:8787').replace(/\/+$/, ''),
    lookup: options.lookup ?? systemLookup,
    allowLoopback: options.allowLoopback ?? false,
    deliver: options.deliver ?? true,
    pollMs: options.pollMs ?? 1_000,
    timeoutMs: options.timeoutMs ?? 10_000,
    leaseMs: options.leaseMs ?? 60_000,
    retryForMs: options.retryForMs ?? 24 * 3_600_000,
    firstRetryMs: options.firstRetryMs ?? 5_000,
  };
}
