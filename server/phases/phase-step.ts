import type { ExperienceConfig } from '../config/config-types.js';

// When an experiment's phase ends and the next begins: the rule a write follows (phase-store.ts records it).

/** What a write does to an experiment's phases: ends the current one, starts the next (for `start`'s reason), both. */
export interface PhaseStep {
  end: boolean;
  /** The new phase's reason, or null when none starts. */
  start: string | null;
}

const NONE: PhaseStep = { end: false, start: null };

/** Served with exposures: an experiment whose status is `running` (the default). */
export function isRunningExperiment(experience: ExperienceConfig | null): boolean {
  return experience !== null && experience.variations !== undefined && (experience.status ?? 'running') === 'running';
}

/** `{control: 34, green: 33}`: the weights by variation name, in the experiment's order. */
export function weightsOf(experience: ExperienceConfig): Record<string, number> {
  return Object.fromEntries((experience.variations ?? []).map((v) => [v.name, v.weight]));
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * What changed between two versions of a running experiment that makes their units incomparable: its weights (or
 * variations), its allocation (fixed or bandit), its traffic, its targeting (condition, devices, namespace), a
 * re-randomisation. A bandit's weights moving (by its reweights or by hand) and other edits (a body, analysis settings,
 * metrics) keep the phase. Empty when nothing did.
 */
export function phaseChanges(before: ExperienceConfig, after: ExperienceConfig): string[] {
  const changes: string[] = [];
  const names = (e: ExperienceConfig): string[] => (e.variations ?? []).map((v) => v.name);
  const banditBoth = before.allocation === 'bandit' && after.allocation === 'bandit';
  if (!same(names(before), names(after))) changes.push(`variations ${names(before).join('/')} → ${names(after).join('/')}`);
  else if ((before.allocation ?? 'fixed') !== (after.allocation ?? 'fixed')) {
    changes.push(`allocation ${before.allocation ?? 'fixed'} → ${after.allocation ?? 'fixed'}`);
  }
  // A bandit's weights are its own to move: its reweights are recorded beside the phase, never as one.
  else if (!banditBoth && !same(weightsOf(before), weightsOf(after))) {
    const weights = (e: ExperienceConfig): string => Object.values(weightsOf(e)).join('/');
    changes.push(`weights ${weights(before)} → ${weights(after)}`);
  }
  if ((before.traffic ?? 100) !== (after.traffic ?? 100)) changes.push(`traffic ${before.traffic ?? 100} % → ${after.traffic ?? 100} %`);
  if (!same(before.condition, after.condition) || !same(before.devices, after.devices) || !same(before.namespace, after.namespace)) {
    changes.push('targeting changed');
  }
  if ((before.randomization ?? 0) !== (after.randomization ?? 0)) changes.push('re-randomised');
  return changes;
}

/**
 * The step a write takes, from the experience before it (null: none) to after it (null: deleted), given whether the
 * experiment has had a phase recorded: starting it begins a phase (`started`, or `restarted` after a stop), stopping or
 * deleting it ends the current one, and a change of weights, traffic or targeting while it runs ends one and begins the
 * next with the change as its reason.
 * @example phaseStep(running34_33_33, running20_60_20, true) // → { end: true, start: 'weights 34/33/33 → 20/60/20' }
 */
export function phaseStep(before: ExperienceConfig | null, after: ExperienceConfig | null, hadPhase: boolean): PhaseStep {
  const wasRunning = isRunningExperiment(before);
  const runs = isRunningExperiment(after);
  if (!wasRunning && runs) {
    const rerandomised = (before?.randomization ?? 0) !== ((after as ExperienceConfig).randomization ?? 0);
    return { end: false, start: `${hadPhase ? 'restarted' : 'started'}${rerandomised ? '; re-randomised' : ''}` };
  }
  if (wasRunning && !runs) return { end: true, start: null };
  if (!wasRunning || !runs) return NONE;
  const changes = phaseChanges(before as ExperienceConfig, after as ExperienceConfig);
  return changes.length === 0 ? NONE : { end: true, start: changes.join('; ') };
}
