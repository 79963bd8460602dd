import {
  fail, finiteNumber, optionalString, requireArray, requireObject, requireString, type Json,
} from './config-json.js';
import { checkExperimentMetrics, validateExperimentSettings } from './validate-experiment-settings.js';
import { validateRecommendationsSettings } from './validate-recommendations.js';
import { checkFeedFills, FEED_STRATEGIES, validateFeedRules } from './validate-feed-rules.js';
import { MAX_ATTRIBUTION_HOURS } from './config-types.js';
import type { ExperienceConfig, ExperienceStatus, FeedConfig, MetricConfig, ProductConfig, ServiceConfigFile } from './config-types.js';

// Validation throws at the first problem with its path (`organizations.acme.projects.shop.experiences[2].variations:
// weights must sum to 100`): an operator fixes one line at a time, and a running service keeps its last
// good config when a reload fails. Unknown fields are allowed so that the shape can grow.

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
// `<id>.<secret>`: the id is what a Basic username carries, so it has no dot and no colon (RFC 7617).
const KEY = /^[^.:\s]{1,64}\.\S{1,256}$/;
const DEVICES = ['mobile', 'desktop'];
const STATUSES: ExperienceStatus[] = ['draft', 'running', 'stopped'];
const STRATEGIES: readonly string[] = FEED_STRATEGIES;

function validateKeys(value: unknown, path: string, seenIds: Map<string, string>): void {
  const keys = requireArray(value, path);
  keys.forEach((key, i) => {
    const keyPath = `${path}[${i}]`;
    if (typeof key !== 'string' || !KEY.test(key)) fail(keyPath, 'must be a key of the form <id>.<secret>');
    const id = key.slice(0, key.indexOf('.'));
    const previous = seenIds.get(id);
    // Key ids are global: authentication finds the project from the key, so two keys may not share an id.
    if (previous !== undefined) fail(keyPath, `key id "${id}" is already used at ${previous}`);
    seenIds.set(id, keyPath);
  });
}

function validateVariations(value: unknown, path: string): void {
  const variations = requireArray(value, path);
  if (variations.length === 0) fail(path, 'must contain at least one variation');
  const names = new Set<string>();
  let sum = 0;
  variations.forEach((raw, i) => {
    const vPath = `${path}[${i}]`;
    const variation = requireObject(raw, vPath);
    const name = requireString(variation.name, `${vPath}.name`);
    if (names.has(name)) fail(`${vPath}.name`, `"${name}" is used twice`);
    names.add(name);
    const weight = finiteNumber(variation.weight, `${vPath}.weight`);
    if (weight < 0 || weight > 100) fail(`${vPath}.weight`, 'must be between 0 and 100');
    sum += weight;
    requireObject(variation.body, `${vPath}.body`);
  });
  // Tolerate float rounding (33.33 + 33.33 + 33.34).
  if (Math.abs(sum - 100) > 1e-6) fail(path, 'weights must sum to 100');
}

function validateExperience(raw: unknown, path: string, feedIds: ReadonlySet<number>): void {
  const exp = requireObject(raw, path);
  const name = requireString(exp.name, `${path}.name`);
  // A re-randomisation's assignments are stored under `name#n` (compile-experiences.ts): an experience named hero#1
  // would share them with hero randomised again.
  if (name.includes('#')) fail(`${path}.name`, 'must not contain "#", which names a re-randomisation\'s assignments');
  optionalString(exp.group, `${path}.group`);
  const kinds = (['variations', 'body', 'feed'] as const).filter((k) => exp[k] !== undefined);
  if (kinds.length !== 1) fail(path, 'must have exactly one of variations, body or feed');
  if (exp.variations !== undefined) validateVariations(exp.variations, `${path}.variations`);
  if (exp.body !== undefined) requireObject(exp.body, `${path}.body`);
  if (exp.feed !== undefined) {
    if (!Number.isInteger(exp.feed)) fail(`${path}.feed`, 'must be an integer feed id');
    if (!feedIds.has(exp.feed as number)) fail(`${path}.feed`, `no feed with id ${String(exp.feed)} in feeds`);
  }
  if (exp.limit !== undefined) {
    if (!Number.isInteger(exp.limit) || (exp.limit as number) < 1 || (exp.limit as number) > 100) {
      fail(`${path}.limit`, 'must be an integer between 1 and 100');
    }
    if (exp.feed === undefined) fail(`${path}.limit`, 'is only allowed with feed');
  }
  if (exp.devices !== undefined) {
    const devices = requireArray(exp.devices, `${path}.devices`);
    devices.forEach((d, i) => {
      if (typeof d !== 'string' || !DEVICES.includes(d)) fail(`${path}.devices[${i}]`, 'must be "mobile" or "desktop"');
    });
  }
  if (exp.traffic !== undefined) {
    const traffic = finiteNumber(exp.traffic, `${path}.traffic`);
    if (traffic < 0 || traffic > 100) fail(`${path}.traffic`, 'must be between 0 and 100');
  }
  if (exp.stickiness !== undefined && exp.stickiness !== 'profile' && exp.stickiness !== 'session') {
    fail(`${path}.stickiness`, 'must be "profile" or "session"');
  }
  if (exp.condition !== undefined) requireObject(exp.condition, `${path}.condition`);
  if (exp.namespace !== undefined) {
    const ns = exp.namespace;
    if (!Array.isArray(ns) || ns.length !== 3 || typeof ns[0] !== 'string' || ns[0] === ''
      || typeof ns[1] !== 'number' || typeof ns[2] !== 'number') {
      fail(`${path}.namespace`, 'must be [namespaceId, start, end]');
    }
    const [, start, end] = ns as [string, number, number];
    if (!(start >= 0 && start < end && end <= 1)) fail(`${path}.namespace`, 'must satisfy 0 <= start < end <= 1');
  }
  optionalString(exp.seed, `${path}.seed`);
  if (exp.hashVersion !== undefined && exp.hashVersion !== 1 && exp.hashVersion !== 2) {
    fail(`${path}.hashVersion`, 'must be 1 or 2');
  }
  if (exp.status !== undefined && !(STATUSES as unknown[]).includes(exp.status)) {
    fail(`${path}.status`, `must be one of ${STATUSES.join(', ')}`);
  }
  if (exp.winner !== undefined) {
    const winner = requireString(exp.winner, `${path}.winner`);
    if (exp.variations === undefined) fail(`${path}.winner`, 'is only allowed for an experiment (with variations)');
    if (!(exp.variations as { name: string }[]).some((v) => v.name === winner)) {
      fail(`${path}.winner`, `must name one of the variations, not "${winner}"`);
    }
    if (exp.status !== 'stopped') fail(`${path}.winner`, 'is only allowed with "status": "stopped"');
  }
  validateExperimentSettings(exp, path);
}

/**
 * One experience as the management API receives it, checked by the file's own rules; `feedIds` are the project's.
 * @throws ConfigError naming the field, e.g. `experience.variations: weights must sum to 100`.
 */
export function validateExperienceItem(raw: unknown, feedIds: ReadonlySet<number>): ExperienceConfig {
  validateExperience(raw, 'experience', feedIds);
  return raw as ExperienceConfig;
}

/** One metric as the management API receives it, checked by the file's own rules. */
export function validateMetricItem(raw: unknown): MetricConfig {
  validateMetric(raw, 'metric');
  return raw as MetricConfig;
}

/** One feed as the management API receives it, checked by the file's own rules. */
export function validateFeedItem(raw: unknown): FeedConfig {
  validateFeed(raw, 'feed');
  return raw as FeedConfig;
}

const METRIC_TYPES = ['binomial', 'count', 'sum', 'ratio'];
const MAX_CUPED_DAYS = 365;
/** The fields of a metric that counts events; a ratio has none of them. */
const EVENT_FIELDS = ['event', 'value', 'distinct', 'where', 'windowHours', 'cap'] as const;

function validateMetric(raw: unknown, path: string): void {
  const metric = requireObject(raw, path);
  const name = requireString(metric.name, `${path}.name`);
  // Names travel in `?metrics=a,b`.
  if (name.length > 64 || name.includes(',')) fail(`${path}.name`, 'must be at most 64 characters, without a comma');
  if (typeof metric.type !== 'string' || !METRIC_TYPES.includes(metric.type)) {
    fail(`${path}.type`, `must be one of ${METRIC_TYPES.join(', ')}`);
  }
  if (metric.inverse !== undefined && typeof metric.inverse !== 'boolean') fail(`${path}.inverse`, 'must be true or false');
  if (metric.type === 'ratio') {
    for (const field of ['numerator', 'denominator'] as const) {
      const other = requireString(metric[field], `${path}.${field}`);
      if (other === name) fail(`${path}.${field}`, 'must name another metric, not the ratio itself');
    }
    const extra = EVENT_FIELDS.find((field) => metric[field] !== undefined);
    if (extra !== undefined) fail(`${path}.${extra}`, 'is not allowed on a ratio: set it on the numerator or denominator metric');
    validateCuped(metric, path);
    return;
  }
  for (const field of ['numerator', 'denominator'] as const) {
    if (metric[field] !== undefined) fail(`${path}.${field}`, 'is only allowed with type "ratio"');
  }
  requireString(metric.event, `${path}.event`);
  if (metric.type === 'sum') requireString(metric.value, `${path}.value`);
  else if (metric.value !== undefined) fail(`${path}.value`, 'is only allowed with type "sum"');
  if (metric.distinct !== undefined && metric.type !== 'count') fail(`${path}.distinct`, 'is only allowed with type "count"');
  optionalString(metric.distinct, `${path}.distinct`);
  if (metric.where !== undefined) requireObject(metric.where, `${path}.where`);
  if (metric.windowHours !== undefined && !(finiteNumber(metric.windowHours, `${path}.windowHours`) > 0)) {
    fail(`${path}.windowHours`, 'must be a number > 0');
  }
  validateCuped(metric, path);
  if (metric.cap !== undefined) validateCap(metric.cap, metric.type as string, `${path}.cap`);
}

function validateCuped(metric: Json, path: string): void {
  if (metric.cuped !== undefined && typeof metric.cuped !== 'boolean') fail(`${path}.cuped`, 'must be true or false');
  if (metric.cupedDays !== undefined) {
    const days = finiteNumber(metric.cupedDays, `${path}.cupedDays`);
    if (!(days > 0 && days <= MAX_CUPED_DAYS)) fail(`${path}.cupedDays`, `must be a number of days > 0 and <= ${MAX_CUPED_DAYS}`);
    if (metric.cuped !== true) fail(`${path}.cupedDays`, 'is only allowed with "cuped": true');
  }
}

function validateCap(raw: unknown, type: string, path: string): void {
  if (type === 'binomial') fail(path, 'is only allowed with type "count" or "sum" (a binomial value is 0 or 1)');
  const cap = requireObject(raw, path);
  if (cap.type !== 'absolute' && cap.type !== 'percentile') fail(`${path}.type`, 'must be "absolute" or "percentile"');
  const value = finiteNumber(cap.value, `${path}.value`);
  if (cap.type === 'absolute' && !(value > 0)) fail(`${path}.value`, 'must be a number > 0 (the largest value a unit counts with)');
  if (cap.type === 'percentile' && !(value > 0 && value <= 1)) fail(`${path}.value`, 'must be a quantile > 0 and <= 1 (0.99 for the 99th percentile)');
  if (cap.ignoreZeros !== undefined) {
    if (typeof cap.ignoreZeros !== 'boolean') fail(`${path}.ignoreZeros`, 'must be true or false');
    if (cap.type !== 'percentile') fail(`${path}.ignoreZeros`, 'is only allowed with type "percentile"');
  }
}

function validateMetrics(value: unknown, path: string): void {
  if (value === undefined) return;
  const names = new Map<string, number>();
  const metrics = requireArray(value, path);
  metrics.forEach((raw, i) => {
    const mPath = `${path}[${i}]`;
    validateMetric(raw, mPath);
    const name = (raw as { name: string }).name;
    const first = names.get(name);
    if (first !== undefined) fail(`${mPath}.name`, `"${name}" is already used by metrics[${first}]`);
    names.set(name, i);
  });
  // A ratio divides two metrics of the same project that count events themselves.
  metrics.forEach((raw, i) => {
    const metric = raw as MetricConfig;
    if (metric.type !== 'ratio') return;
    for (const field of ['numerator', 'denominator'] as const) {
      const other = metrics[names.get(metric[field] as string) ?? -1] as MetricConfig | undefined;
      if (other === undefined) fail(`${path}[${i}].${field}`, `no metric named "${metric[field] as string}" in metrics`);
      if (other.type === 'ratio') fail(`${path}[${i}].${field}`, `"${other.name}" is a ratio: a ratio divides two metrics that count events`);
    }
  });
}

function validateFeeds(value: unknown, path: string): Set<number> {
  const ids = new Set<number>();
  if (value === undefined) return ids;
  requireArray(value, path).forEach((raw, i) => {
    const fPath = `${path}[${i}]`;
    const id = validateFeed(raw, fPath);
    if (ids.has(id)) fail(`${fPath}.id`, `feed id ${id} is used twice`);
    ids.add(id);
  });
  checkFeedFills(value as Json[], path);
  return ids;
}

function validateFeed(raw: unknown, path: string): number {
  const feed = requireObject(raw, path);
  if (!Number.isInteger(feed.id) || (feed.id as number) < 1) fail(`${path}.id`, 'must be a positive integer');
  if (typeof feed.strategy !== 'string' || !STRATEGIES.includes(feed.strategy)) {
    fail(`${path}.strategy`, `must be one of ${STRATEGIES.join(', ')}`);
  }
  const hours = feed.attributionHours;
  if (hours !== undefined && (!Number.isInteger(hours) || (hours as number) < 1 || (hours as number) > MAX_ATTRIBUTION_HOURS)) {
    fail(`${path}.attributionHours`, `must be a whole number of hours from 1 to ${MAX_ATTRIBUTION_HOURS}`);
  }
  validateFeedRules(feed, path);
  return feed.id as number;
}

function validateCatalog(value: unknown, path: string): void {
  if (value === undefined) return;
  const ids = new Set<string>();
  requireArray(value, path).forEach((raw, i) => {
    const pPath = `${path}[${i}]`;
    const product = requireObject(raw, pPath) as Partial<ProductConfig>;
    const id = requireString(product.id, `${pPath}.id`);
    if (ids.has(id)) fail(`${pPath}.id`, `product id "${id}" is used twice`);
    ids.add(id);
    for (const field of ['title', 'currency', 'url', 'image', 'category', 'brand'] as const) {
      if (product[field] !== undefined && typeof product[field] !== 'string') fail(`${pPath}.${field}`, 'must be a string');
    }
    if (product.tags !== undefined && (!Array.isArray(product.tags) || !product.tags.every((t) => typeof t === 'string'))) {
      fail(`${pPath}.tags`, 'must be an array of strings');
    }
    if (product.inventory !== undefined && (typeof product.inventory !== 'number' || !Number.isFinite(product.inventory))) {
      fail(`${pPath}.inventory`, 'must be a number');
    }
    if (product.price !== undefined && (typeof product.price !== 'number' || !(product.price >= 0))) {
      fail(`${pPath}.price`, 'must be a number >= 0');
    }
    if (product.available !== undefined && typeof product.available !== 'boolean') {
      fail(`${pPath}.available`, 'must be a boolean');
    }
  });
}

function validateProject(raw: unknown, path: string, seenKeyIds: Map<string, string>): void {
  const project = requireObject(raw, path);
  validateKeys(project.apiKeys, `${path}.apiKeys`, seenKeyIds);
  validateKeys(project.writeKeys, `${path}.writeKeys`, seenKeyIds);
  const sources = requireArray(project.sources, `${path}.sources`);
  if (sources.length === 0) fail(`${path}.sources`, 'must list at least one source');
  const sourceSet = new Set<string>();
  sources.forEach((s, i) => {
    const source = requireString(s, `${path}.sources[${i}]`);
    if (!NAME.test(source)) fail(`${path}.sources[${i}]`, 'must be letters, digits, "_" or "-" (at most 64)');
    if (sourceSet.has(source)) fail(`${path}.sources[${i}]`, `"${source}" is listed twice`);
    sourceSet.add(source);
  });
  const feedIds = validateFeeds(project.feeds, `${path}.feeds`);
  if (project.experiences !== undefined) {
    const names = new Map<string, number>();
    requireArray(project.experiences, `${path}.experiences`).forEach((exp, i) => {
      const ePath = `${path}.experiences[${i}]`;
      validateExperience(exp, ePath, feedIds);
      const name = (exp as ExperienceConfig).name;
      const first = names.get(name);
      if (first !== undefined) fail(`${ePath}.name`, `"${name}" is already used by experiences[${first}]`);
      names.set(name, i);
    });
  }
  validateMetrics(project.metrics, `${path}.metrics`);
  checkExperimentMetrics(project as { experiences?: ExperienceConfig[]; metrics?: MetricConfig[] }, path);
  validateCatalog(project.catalog, `${path}.catalog`);
  validateRecommendationsSettings(project, path);
  if (project.limits !== undefined) {
    const limits = requireObject(project.limits, `${path}.limits`);
    for (const field of ['writeKeyPerSecond', 'apiKeyPerSecond'] as const) {
      if (limits[field] !== undefined) {
        const n = finiteNumber(limits[field], `${path}.limits.${field}`);
        if (n <= 0) fail(`${path}.limits.${field}`, 'must be a number > 0');
      }
    }
  }
  if (project.retention !== undefined) {
    const retention = requireObject(project.retention, `${path}.retention`);
    for (const field of ['eventsDays', 'exposuresDays'] as const) {
      const days = retention[field];
      if (days !== undefined && (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > 36_500)) {
        fail(`${path}.retention.${field}`, 'must be a whole number of days from 1 to 36500');
      }
    }
  }
  if (project.allowedOrigins !== undefined) {
    requireArray(project.allowedOrigins, `${path}.allowedOrigins`).forEach((o, i) => {
      const origin = requireString(o, `${path}.allowedOrigins[${i}]`);
      if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
        fail(`${path}.allowedOrigins[${i}]`, 'must be an origin like https://shop.example.com (no path) or "*"');
      }
    });
  }
}

/** An organization's OpenID Connect settings: https URLs (http only on this machine's own names, for tests). */
function validateOidc(raw: unknown, path: string): void {
  const oidc = requireObject(raw, path);
  for (const field of ['issuer', 'redirectUri'] as const) {
    const value = requireString(oidc[field], `${path}.${field}`);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      fail(`${path}.${field}`, 'must be an absolute URL');
    }
    const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) fail(`${path}.${field}`, 'must be an https URL');
  }
  if (!/\/admin\/oidc\/callback$/.test(new URL(oidc.redirectUri as string).pathname)) {
    fail(`${path}.redirectUri`, 'must be the service\'s /admin/oidc/callback address');
  }
  requireString(oidc.clientId, `${path}.clientId`);
  requireString(oidc.clientSecret, `${path}.clientSecret`);
  optionalString(oidc.roleClaim, `${path}.roleClaim`);
}

/**
 * Checks a parsed svc.config.json against the configuration's shape (config-types.ts) and returns it typed.
 * @throws ConfigError whose message names the first bad path.
 * @example validateConfig(JSON.parse(readFileSync('svc.config.json', 'utf8')))
 */
export function validateConfig(raw: unknown): ServiceConfigFile {
  const root = requireObject(raw, '');
  const organizations = requireObject(root.organizations, 'organizations');
  const seenKeyIds = new Map<string, string>();
  for (const [orgName, orgRaw] of Object.entries(organizations)) {
    const orgPath = `organizations.${orgName}`;
    if (!NAME.test(orgName)) fail(orgPath, 'organization names are letters, digits, "_" or "-" (at most 64)');
    const org = requireObject(orgRaw, orgPath);
    if (org.adminKeys !== undefined) validateKeys(org.adminKeys, `${orgPath}.adminKeys`, seenKeyIds);
    if (org.oidc !== undefined) validateOidc(org.oidc, `${orgPath}.oidc`);
    const projects = requireObject(org.projects, `${orgPath}.projects`);
    for (const [projectName, projectRaw] of Object.entries(projects)) {
      const projectPath = `${orgPath}.projects.${projectName}`;
      if (!NAME.test(projectName)) fail(projectPath, 'project names are letters, digits, "_" or "-" (at most 64)');
      validateProject(projectRaw, projectPath, seenKeyIds);
    }
  }
  return raw as ServiceConfigFile;
}
