// An experience as the management API stores and answers it (server/config/config-types.ts is the service's side of
// this contract; the console keeps its own copy rather than importing service code into a browser bundle).
import type { AutomaticStop } from '../wire/automatic-stop.js';
import type { PValueCorrection } from '../wire/results-answer.js';

export type Device = 'mobile' | 'desktop';
export type ExperienceStatus = 'draft' | 'running' | 'stopped';
/** What an experience serves: variations (an experiment), one body (content for everyone) or a feed. */
export type ExperienceKind = 'experiment' | 'content' | 'feed';

export const DEVICES: readonly Device[] = ['mobile', 'desktop'];

export interface Variation {
  name: string;
  weight: number;
  body: Record<string, unknown>;
}

/**
 * One experience as `PUT …/experiences/{name}` takes it. Fields the console does not edit (stickiness, namespace,
 * seed, hashVersion) are carried through unchanged, hence the index signature.
 */
export interface ExperienceItem {
  name: string;
  group?: string;
  devices?: Device[];
  traffic?: number;
  variations?: Variation[];
  body?: Record<string, unknown>;
  feed?: number;
  limit?: number;
  condition?: Record<string, unknown>;
  status?: ExperienceStatus;
  winner?: string;
  /** Experiments only, how results are computed: the significance level, 0 < alpha < 0.5 (default 0.05). */
  alpha?: number;
  /** Sequential (always-valid) intervals and p-values, safe to read every day (default false: fixed-horizon). */
  sequential?: boolean;
  /** The sequential tests' tuning: the number of units the intervals are tightest around, ≥ 1 (default 5000). */
  sequentialTuning?: number;
  /** The correction of p-values across the results' metrics × challengers (default `none`). */
  correction?: PValueCorrection;
  /** The metrics it is judged by, by name: the first goal is the primary one (the list's headline, Ship). */
  goals?: string[];
  secondary?: string[];
  /** Metrics no variation may harm: the service stops the experiment when one does. */
  guardrails?: string[];
  /** A sample-ratio mismatch in the current phase stops it too (default: it only warns). */
  stopOnSrm?: boolean;
  /** Written by the service when it stopped the experiment by itself. */
  stoppedBy?: AutomaticStop;
  /** `bandit`: the service moves the weights towards the variation doing best on `bandit.metric` (default `fixed`). */
  allocation?: Allocation;
  /** With `allocation: "bandit"`: what it decides by and how fast it moves. */
  bandit?: BanditSettings;
  [field: string]: unknown;
}

export type { AutomaticStop };

export type Allocation = 'fixed' | 'bandit';

/** A bandit's settings as the service stores them; each one absent is the service's default (`BANDIT_DEFAULTS`). */
export interface BanditSettings {
  /** The goal it decides by (default: the first goal). */
  metric?: string;
  /** Equal weights until this many units, and `explorationHours`, have passed. */
  explorationUnits?: number;
  explorationHours?: number;
  /** How often the weights are drawn again, at least `MIN_CADENCE_MINUTES`. */
  cadenceMinutes?: number;
  /** The floor of each arm's weight, in percent. */
  minShare?: number;
}

/** The service's defaults for a bandit's settings (server/config/bandit-settings.ts): one at its default is not written. */
export const BANDIT_DEFAULTS = { explorationUnits: 0, explorationHours: 24, cadenceMinutes: 60, minShare: 1 } as const;

/** The service refuses a bandit that reweights more often than this. */
export const MIN_CADENCE_MINUTES = 5;

/** The service's defaults for an experiment's analysis settings: a setting at its default is not written. */
export const ANALYSIS_DEFAULTS = { alpha: 0.05, sequential: false, sequentialTuning: 5000, correction: 'none' } as const;

/** An experience as the API answers it: the item plus its version (the ETag), where it comes from, its status. */
export interface Experience extends ExperienceItem {
  version: number;
  source: 'file' | 'api';
  status: ExperienceStatus;
}

export interface Feed {
  id: number;
  strategy: string;
  version: number;
  source: 'file' | 'api';
}

export interface AuditEntry {
  /** ISO 8601. */
  at: string;
  keyId: string;
  /**
   * Who made the change: a key (its name) or a person, with the role they had then and, for a change made through the
   * API, the address and browser it came from.
   */
  /** `via: 'service'`: the service did it in the background for this person or key (a privacy request's progress). */
  actor?: { type: 'person' | 'key'; id: string; name: string; role?: string; ip?: string; userAgent?: string; via?: 'service' };
  /**
   * `stop`: the service stopped an experiment by itself (`after.stoppedBy` says why); `reweight`: a bandit's weights
   * moved by the service.
   */
  action: 'create' | 'update' | 'delete' | 'stop' | 'reweight';
  kind: 'experience' | 'metric' | 'feed' | 'erasure' | 'export';
  name: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export function kindOf(e: ExperienceItem): ExperienceKind {
  if (e.variations !== undefined) return 'experiment';
  return e.feed !== undefined ? 'feed' : 'content';
}

/** The item to write back: what the API added to its answer (version, source) is not part of it. */
export function itemOf(e: Experience): ExperienceItem {
  const { version: _version, source: _source, ...item } = e;
  return item;
}
