// The bandit simulation gives each unit one arm for good, by construction. This checks that assumption against the
// service's own rule: the choose engine (server/choose/engine/) with first assignments kept insert-if-absent, as the
// database's unique key on (project, experience, unit) keeps them. One simulated bandit's weights, hour by hour: new
// people arrive every hour, and every person seen so far asks again after each change of weights; none may move.
import type { ExperienceConfig } from '../server/config/config-types.js';
import { chooseExperiences } from '../server/choose/engine/choose-engine.js';
import type { AssignmentPort, AssignmentRequest } from '../server/choose/engine/choose-types.js';
import { compileExperiences, type CompiledExperiences } from '../server/choose/engine/compile-experiences.js';
import { SCENARIOS, simulateRun, type SimulationOptions } from './bandit-sim.js';

export interface StickinessCheck {
  /** People assigned, over the whole run. */
  units: number;
  /** Hours whose weights differed from the hour before. */
  reweights: number;
  /** A person asked again after a change of weights. */
  checks: number;
  /** …and answered another arm than the first (must be 0). */
  moved: number;
  /** …whom the hash of the new weights alone would have put in another arm: what the stored assignment prevents. */
  wouldMove: number;
}

const NAME = 'simulated-bandit';
const NEW_PER_HOUR = 10;

/** First assignments in memory, stored only when absent (the database's unique key). */
class FirstAssignments implements AssignmentPort {
  readonly stored = new Map<string, string>();

  getOrCreateAssignments(requests: readonly AssignmentRequest[]): string[] {
    return requests.map((r) => {
      const key = `${r.experience}\u0000${r.unitKey}`;
      const known = this.stored.get(key);
      if (known !== undefined) return known;
      this.stored.set(key, r.proposedVariation);
      return r.proposedVariation;
    });
  }
}

/** What the engine answers nobody stored anything for: the hash of the current weights. */
const NO_STORE: AssignmentPort = { getOrCreateAssignments: (requests) => requests.map((r) => r.proposedVariation) };

async function arm(compiled: CompiledExperiences, profileId: string, port: AssignmentPort): Promise<string> {
  const { choices } = await chooseExperiences(compiled, { names: [NAME], profileId }, { assignments: port });
  return choices[0]?.variation as string;
}

/** Runs the check over the weights of the first simulated bandit of the first scenario. */
export async function checkStickiness(options: SimulationOptions): Promise<StickinessCheck> {
  const hourly: number[][] = [];
  simulateRun(SCENARIOS[0]!, 'bandit', 0, options, (_, weights) => hourly.push([...weights]));
  const port = new FirstAssignments();
  const first = new Map<string, string>();
  const result: StickinessCheck = { units: 0, reweights: 0, checks: 0, moved: 0, wouldMove: 0 };
  let previous: string | null = null;
  for (const [hour, weights] of hourly.entries()) {
    const experience: ExperienceConfig = {
      name: NAME, allocation: 'bandit', goals: ['purchase'],
      variations: weights.map((weight, k) => ({ name: `arm${k}`, weight, body: { arm: k } })),
    };
    const compiled = compileExperiences([experience]);
    const key = JSON.stringify(weights);
    if (previous !== null && key !== previous) {
      result.reweights++;
      for (const [profileId, variation] of first) {
        result.checks++;
        if ((await arm(compiled, profileId, port)) !== variation) result.moved++;
        if ((await arm(compiled, profileId, NO_STORE)) !== variation) result.wouldMove++;
      }
    }
    previous = key;
    for (let i = 0; i < NEW_PER_HOUR; i++) {
      const profileId = `p-${hour}-${i}`;
      first.set(profileId, await arm(compiled, profileId, port));
      result.units++;
    }
  }
  return result;
}
