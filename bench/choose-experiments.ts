// The 20 experiments both sides of the choose benches evaluate: 50/50 over two variations, hash v2, five of
// them targeted by a condition on `plan` (which every bench profile matches), as svc config and as the
// equivalent GrowthBook feature payload.
import type { ExperienceConfig } from '../server/config/config-types.js';

export const EXPERIMENT_COUNT = 20;
export const NAMES = Array.from({ length: EXPERIMENT_COUNT }, (_, i) => `exp-${String(i).padStart(2, '0')}`);
export const CONDITION = { plan: { $in: ['pro', 'team'] } };
export const ATTRIBUTES = { plan: 'pro' };

const targeted = (i: number): boolean => i % 4 === 0;

export function svcExperiments(): ExperienceConfig[] {
  return NAMES.map((name, i) => ({
    name,
    group: 'bench',
    variations: [
      { name: 'control', weight: 50, body: { title: `${name} control`, color: 'blue' } },
      { name: 'treatment', weight: 50, body: { title: `${name} treatment`, color: 'red' } },
    ],
    ...(targeted(i) ? { condition: CONDITION } : {}),
  }));
}

/** GrowthBook features, one experiment rule each (the same seeds, weights, hash version and conditions). */
export function growthbookFeatures(): Record<string, unknown> {
  const features: Record<string, unknown> = {};
  NAMES.forEach((name, i) => {
    features[name] = {
      defaultValue: null,
      rules: [{
        key: name,
        seed: name,
        hashVersion: 2,
        hashAttribute: 'id',
        coverage: 1,
        weights: [0.5, 0.5],
        variations: [{ title: `${name} control`, color: 'blue' }, { title: `${name} treatment`, color: 'red' }],
        meta: [{ key: 'control' }, { key: 'treatment' }],
        ...(targeted(i) ? { condition: CONDITION } : {}),
      }],
    };
  });
  return features;
}
