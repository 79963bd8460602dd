// GrowthBook's published SDK suite, driven as data: one test per case, 100% must pass.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { hash, hashV2FromSeedState, seedState } from '../../../server/choose/engine/hash.js';
import { getBucketRanges } from '../../../server/choose/engine/bucket-ranges.js';
import { chooseVariation } from '../../../server/choose/engine/choose-variation.js';
import { inNamespace } from '../../../server/choose/engine/in-namespace.js';
import { getEqualWeights } from '../../../server/choose/engine/equal-weights.js';
import { evalCondition } from '../../../server/config/condition.js';
import type { Condition, SavedGroups } from '../../../server/config/condition.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
// A verbatim copy of the published suite (test/fixtures/growthbook-cases.NOTICE.md says where it comes from).
const fixturePath = path.join(repoRoot, 'test/fixtures/growthbook-cases.json');

type HashCase = [seed: string, value: string, version: number, expected: number | null];
type RangeCase = [name: string, args: [number, number, number[] | null], expected: [number, number][]];
type ChooseCase = [name: string, n: number, ranges: [number, number][], expected: number];
type NamespaceCase = [name: string, id: string, namespace: [string, number, number], expected: boolean];
type EqualWeightsCase = [n: number, expected: number[]];
type ConditionCase = [name: string, condition: Condition, attributes: unknown, expected: boolean, savedGroups?: SavedGroups];

interface Cases {
  specVersion: string;
  hash: HashCase[];
  getBucketRange: RangeCase[];
  chooseVariation: ChooseCase[];
  inNamespace: NamespaceCase[];
  getEqualWeights: EqualWeightsCase[];
  evalCondition: ConditionCase[];
}

const raw = readFileSync(fixturePath, 'utf8');
const cases = JSON.parse(raw) as Cases;

const round = (x: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

describe('GrowthBook conformance suite (specVersion 0.8.0)', () => {
  it('uses spec version 0.8.0', () => {
    assert.equal(cases.specVersion, '0.8.0');
  });

  describe('hash', () => {
    for (const [seed, value, version, expected] of cases.hash) {
      it(`hash(${JSON.stringify(seed)}, ${JSON.stringify(value)}, v${version}) = ${expected}`, () => {
        assert.equal(hash(seed, value, version), expected);
      });
    }
    // The engine's fast path (seed hashed once per config) must be the same function.
    for (const [seed, value, , expected] of cases.hash.filter((c) => c[2] === 2)) {
      it(`hashV2FromSeedState(seedState(${JSON.stringify(seed)}), ${JSON.stringify(value)}) = ${expected}`, () => {
        assert.equal(hashV2FromSeedState(seedState(seed), value), expected);
      });
    }
  });

  describe('getBucketRange', () => {
    for (const [name, [numVariations, coverage, weights], expected] of cases.getBucketRange) {
      it(name, () => {
        // Float noise (0.2 × 0.2 = 0.04000000000000001) is not a semantic difference.
        const actual = getBucketRanges(numVariations, coverage, weights).map(([a, b]) => [round(a, 8), round(b, 8)]);
        assert.deepEqual(actual, expected);
      });
    }
  });

  describe('chooseVariation', () => {
    for (const [name, n, ranges, expected] of cases.chooseVariation) {
      it(name, () => {
        assert.equal(chooseVariation(n, ranges), expected);
      });
    }
  });

  describe('inNamespace', () => {
    for (const [name, id, namespace, expected] of cases.inNamespace) {
      it(name, () => {
        assert.equal(inNamespace(id, namespace), expected);
      });
    }
  });

  describe('getEqualWeights', () => {
    for (const [n, expected] of cases.getEqualWeights) {
      it(`getEqualWeights(${n})`, () => {
        assert.deepEqual(getEqualWeights(n).map((w) => round(w, 8)), expected);
      });
    }
  });

  describe('evalCondition', () => {
    for (const [name, condition, attributes, expected, savedGroups] of cases.evalCondition) {
      // Names repeat in the suite ("$not - pass"), so the condition keeps each test distinct.
      it(`${name}: ${JSON.stringify(condition)}`, () => {
        assert.equal(evalCondition(attributes, condition, savedGroups), expected);
      });
    }
  });
});
