// The automatic stop's verdict on one report: every guardrail × challenger is one test of harm, and the stop corrects
// for that family with Holm–Bonferroni, so that a false stop stays within alpha however many guardrails and
// challengers an experiment has. Pure: reports are built here as the service answers them (wire/results-answer.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExperienceConfig } from '../../../server/config/config-types.js';
import { holmBonferroni } from '../../../server/results/corrections.js';
import { describeStop, guardrailVerdict } from '../../../server/guardrails/guardrail-verdict.js';
import { markHarmFamily } from '../../../server/results/harm-family.js';
import { simulateGuardrailFamily } from '../../../bench/guardrail-family-bench.js';
import type { MetricResult, ResultsAnswer } from '../../../wire/results-answer.js';

const AT = '2026-11-26T10:00:00.000Z';
const CHALLENGERS = ['bold', 'calm'];

function experiment(guardrails: string[]): ExperienceConfig {
  return {
    name: 'hero', status: 'running', guardrails,
    variations: ['control', ...CHALLENGERS].map((name) => ({ name, weight: 100 / 3, body: { v: name } })),
  };
}

/** A guardrail whose challengers' harm tests have these p-values (null: no test), harmed by p < 0.05 alone. */
function guardrail(name: string, pValues: (number | null)[]): MetricResult {
  return {
    name, type: 'binomial', role: 'guardrail', inverse: true, cupedApplied: false,
    variations: [
      { name: 'control', units: 100, total: 5, mean: 0.05, stddev: 0.2 },
      ...CHALLENGERS.map((v, i) => ({
        name: v, units: 100, total: 9, mean: 0.09, stddev: 0.29, uplift: 0.8, ci: [-0.1, 1.7] as [number, number],
        harm: { pValue: pValues[i] ?? null, harmed: typeof pValues[i] === 'number' && (pValues[i] as number) < 0.05 },
      })),
    ],
  };
}

function report(metrics: MetricResult[]): ResultsAnswer {
  return {
    experience: 'hero', control: 'control', phase: 1, phases: [], units: 300, multipleExposures: 0,
    srm: { pValue: 0.5, mismatch: false }, analysis: { alpha: 0.05, interval: 'fixed-horizon', correction: 'none' },
    variations: ['control', ...CHALLENGERS].map((name) => ({ name, weight: 100 / 3, units: 100 })),
    metrics,
  };
}

describe('Holm–Bonferroni over a family of guardrail × challenger tests', () => {
  it('adjusts 5 guardrails × 3 challengers: the smallest p times 15, the next times 14, never decreasing', () => {
    // By hand: sorted 0.001, 0.002, 0.004, then twelve at 0.5; × 15, 14, 13, then 12 … → 0.015, 0.028, 0.052, 1 …
    const p = [0.5, 0.004, 0.5, 0.5, 0.5, 0.001, 0.5, 0.5, 0.5, 0.5, 0.002, 0.5, 0.5, 0.5, 0.5];
    const adjusted = holmBonferroni(p);
    assert.equal(adjusted.length, 15);
    assert.ok(Math.abs((adjusted[5] as number) - 0.015) < 1e-15, String(adjusted[5]));
    assert.ok(Math.abs((adjusted[10] as number) - 0.028) < 1e-15, String(adjusted[10]));
    assert.ok(Math.abs((adjusted[1] as number) - 0.052) < 1e-15, String(adjusted[1]));
    for (const i of [0, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13, 14]) assert.equal(adjusted[i], 1);
  });
});

describe('the automatic stop corrects for its family of guardrail × challenger tests', () => {
  it('does not stop for one harm test at p = 0.02 among 2 guardrails × 2 challengers (Holm: 0.08)', () => {
    const verdict = guardrailVerdict(experiment(['errors', 'latency']), report([guardrail('errors', [0.02, 0.6]), guardrail('latency', [0.7, 0.9])]), AT);
    assert.equal(verdict, null);
  });

  it('stops for p = 0.01 among 4 (Holm: 0.04) and records the adjusted p-value, the family and its correction', () => {
    const stop = guardrailVerdict(experiment(['errors', 'latency']), report([guardrail('errors', [0.6, 0.3]), guardrail('latency', [0.01, 0.9])]), AT);
    assert.ok(stop !== null);
    assert.equal(stop.rule, 'guardrail');
    assert.equal(stop.metric, 'latency');
    assert.equal(stop.variation, 'bold');
    assert.equal(stop.pValue, 0.01, 'the harm test\'s own p-value is kept');
    assert.ok(Math.abs((stop.pValueAdjusted as number) - 0.04) < 1e-15, String(stop.pValueAdjusted));
    assert.equal(stop.familySize, 4);
    assert.equal(stop.correction, 'holm-bonferroni');
    assert.match(describeStop(stop), /Holm-adjusted p = 0\.040 over 4 guardrail × challenger tests/);
  });

  it('counts a guardrail the report lacks, and a test that could not be made, in the family', () => {
    // One guardrail of two in the report, one of its challengers untested: still a family of 4, so 0.02 → 0.08.
    assert.equal(guardrailVerdict(experiment(['errors', 'latency']), report([guardrail('errors', [0.02, null])]), AT), null);
    // The same p-value with one guardrail named: a family of 2 (0.04), a stop.
    const stop = guardrailVerdict(experiment(['errors']), report([guardrail('errors', [0.02, null])]), AT);
    assert.equal(stop?.familySize, 2);
    assert.ok(Math.abs((stop?.pValueAdjusted as number) - 0.04) < 1e-15);
  });

  it('stops on the first guardrail in the experiment\'s order whose adjusted p-value is below alpha', () => {
    const stop = guardrailVerdict(experiment(['errors', 'latency']), report([guardrail('errors', [0.011, 0.6]), guardrail('latency', [0.001, 0.9])]), AT);
    // Holm: 0.001 × 4 = 0.004, 0.011 × 3 = 0.033: both below alpha; errors comes first.
    assert.equal(stop?.metric, 'errors');
    assert.ok(Math.abs((stop?.pValueAdjusted as number) - 0.033) < 1e-15, String(stop?.pValueAdjusted));
  });

  it('a certain harm (neither side varies, p 0) stops whatever the family', () => {
    const stop = guardrailVerdict(experiment(['errors', 'latency']), report([guardrail('errors', [0.9, 0]), guardrail('latency', [0.9, 0.9])]), AT);
    assert.equal(stop?.variation, 'calm');
    assert.equal(stop?.pValueAdjusted, 0);
  });
});

describe('the answer\'s harm marks come from the stop\'s own family', () => {
  it('marks each guardrail × challenger with its Holm-adjusted p-value and whether the stop acts on it, as the verdict does', () => {
    const answer = report([guardrail('errors', [0.02, 0.6]), guardrail('latency', [0.01, null])]);
    markHarmFamily(['errors', 'latency'], answer);
    const marks = answer.metrics.flatMap((m) => m.variations.slice(1).map((v) => [m.name, v.name, v.harm?.harmed, v.harm?.pValueAdjusted, v.harm?.stops]));
    // Holm over 4 (the untested one as p = 1): 0.01 × 4 = 0.04, 0.02 × 3 = 0.06, then 0.6 × 2 = 1.2 → 1, 1.
    assert.deepEqual(marks.map(([m, v, harmed, , stops]) => [m, v, harmed, stops]), [
      ['errors', 'bold', true, false], ['errors', 'calm', false, false], ['latency', 'bold', true, true], ['latency', 'calm', false, false],
    ]);
    const adjusted = marks.map((row) => row[3] as number | null);
    assert.ok(Math.abs((adjusted[0] as number) - 0.06) < 1e-15 && Math.abs((adjusted[2] as number) - 0.04) < 1e-15, String(adjusted));
    assert.deepEqual([adjusted[1], adjusted[3]], [1, null], 'a test not made has no adjusted p-value');
    const stop = guardrailVerdict(experiment(['errors', 'latency']), answer, AT);
    assert.deepEqual([stop?.metric, stop?.variation, stop?.pValueAdjusted], ['latency', 'bold', adjusted[2]]);
  });
});

describe('simulated A/A experiments with 5 guardrails × 3 challengers, read daily for 28 days (300, fixed seed)', () => {
  const experiments = 300;
  const result = simulateGuardrailFamily({ experiments, seed: 11 });
  const bound = result.alpha + 2 * Math.sqrt((result.alpha * (1 - result.alpha)) / experiments);

  it('the verdict, Holm across the 15 tests, stops within alpha and its Monte-Carlo error', () => {
    assert.ok(result.tests > experiments * 15, `${result.tests} harm tests`);
    assert.ok(result.stopped <= bound, `stopped ${result.stopped} > ${bound}`);
  });

  it('each harm test alone, the stop before the correction, would stop several times alpha of them', () => {
    assert.ok(result.anyAlone >= 2 * result.alpha, `any alone ${result.anyAlone}`);
  });
});
