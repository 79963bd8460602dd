// Assignment uniformity: Pearson's χ² over 100,000 deterministic profile ids must not reject the
// configured split at the 1% level. No randomness: the ids are p-0 … p-99999.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import type { ExperienceConfig } from '../../../server/config/config-types.js';
import { chooseExperiences as chooseCompiled } from '../../../server/choose/engine/choose-engine.js';
import { compileExperiences } from '../../../server/choose/engine/compile-experiences.js';
import type { AssignmentPort } from '../../../server/choose/engine/choose-types.js';

/** The engine on `experiences` compiled for the call (the service compiles each project's config once). */
function chooseExperiences(experiences: readonly ExperienceConfig[], ...rest: Parameters<typeof chooseCompiled> extends [unknown, ...infer R] ? R : never) {
  return chooseCompiled(compileExperiences(experiences, rest[1].logger), ...rest);
}

const PROFILES = 100_000;

/** χ² critical values at p = 0.01 by degrees of freedom (upper tail). */
const CRITICAL_P01: Readonly<Record<number, number>> = { 1: 6.635, 2: 9.21 };

// Every unit is new here, so the store just keeps the proposal; answering synchronously keeps the
// test fast without changing what is measured (the engine's own assignment).
const proposalStore: AssignmentPort = { getOrCreateAssignments: (requests) => requests.map((r) => r.proposedVariation) };

function chiSquare(observed: readonly number[], expected: readonly number[]): number {
  let x2 = 0;
  for (let i = 0; i < observed.length; i++) x2 += (observed[i]! - expected[i]!) ** 2 / expected[i]!;
  return x2;
}

const splits: { name: string; weights: number[] }[] = [
  { name: 'split-50-50', weights: [50, 50] },
  { name: 'split-34-33-33', weights: [34, 33, 33] },
];

describe('choose uniformity (χ², 100,000 profiles, p > 0.01)', () => {
  for (const { name, weights } of splits) {
    it(`${weights.join('/')} is not rejected at p = 0.01`, async () => {
      const variations = weights.map((weight, i) => ({ name: `v${i}`, weight, body: {} }));
      const experiences: ExperienceConfig[] = [{ name, variations }];
      const index = new Map(variations.map((v, i) => [v.name, i]));
      const observed = new Array<number>(weights.length).fill(0);
      for (let i = 0; i < PROFILES; i++) {
        const { choices } = await chooseExperiences(experiences, { names: [name], profileId: `p-${i}` }, { assignments: proposalStore });
        observed[index.get(choices[0]!.variation!)!]!++;
      }
      assert.equal(observed.reduce((a, b) => a + b, 0), PROFILES, 'every profile is assigned');
      const expected = weights.map((w) => (PROFILES * w) / 100);
      const x2 = chiSquare(observed, expected);
      const critical = CRITICAL_P01[weights.length - 1]!;
      assert.ok(x2 < critical, `χ² = ${x2.toFixed(3)} ≥ ${critical} (df ${weights.length - 1}); observed ${observed.join('/')}`);
    });
  }

  it('the χ² check rejects a skewed split (the test can fail)', () => {
    // 50.5/49.5 over 100,000 is χ² = 100: far beyond 6.635.
    assert.ok(chiSquare([50_500, 49_500], [50_000, 50_000]) > CRITICAL_P01[1]!);
  });
});
