import type { Migration } from '../storage/migrations.js';

// An experiment's phases: each change to a running experiment's weights, traffic or targeting (and each start and
// restart) begins one. Results answer one phase over the units first exposed in it, and test its split against its
// weights. `started_at` NULL: the phase began before phases were recorded (the file's experiment, or one the API
// started before this version): since the experiment's first exposure. `randomization`: the experiment's count of
// re-randomisations during the phase (a phase that re-randomised has a higher one than the phase before it).
const phases = (t: { int: string }): string => `
CREATE TABLE experiment_phases (
  project TEXT NOT NULL,
  experience TEXT NOT NULL,
  phase INTEGER NOT NULL,
  started_at ${t.int},
  ended_at ${t.int},
  weights TEXT NOT NULL,
  version INTEGER NOT NULL,
  reason TEXT NOT NULL,
  randomization INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (project, experience, phase)
);
`;

// A bandit's reweights: each time the service moved a bandit's weights (server/bandits/), when, to what, what each arm's
// posterior was, and the experience's version the write made. They never start a phase: results stratify a phase by
// the periods between its reweights.
const reweights = (t: { int: string }): string => `
CREATE TABLE bandit_reweights (
  project TEXT NOT NULL,
  experience TEXT NOT NULL,
  at ${t.int} NOT NULL,
  weights TEXT NOT NULL,
  arms TEXT NOT NULL,
  reason TEXT NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (project, experience, at)
);
`;

export const PHASES_MIGRATIONS: readonly Migration[] = [
  {
    version: 17,
    name: 'phases: the phases of each experiment (start, end, weights, version, reason)',
    sqlite: phases({ int: 'INTEGER' }),
    postgres: phases({ int: 'BIGINT' }),
  },
  {
    version: 27,
    name: 'phases: the reweights of each bandit (time, weights, the posterior each arm had)',
    sqlite: reweights({ int: 'INTEGER' }),
    postgres: reweights({ int: 'BIGINT' }),
  },
];
