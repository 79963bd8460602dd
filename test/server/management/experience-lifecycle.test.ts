// Experience lifecycle (`status`, `winner`): drafts and experiments stopped without a winner are served to nobody;
// an experiment stopped with a winner serves that variation to everyone, storing and exposing nothing. First the
// engine with a fake assignment port, then the Choose API through app.inject() on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../../../server/app.js';
import { chooseExperiences } from '../../../server/choose/engine/choose-engine.js';
import { compileExperiences, needsTargeting } from '../../../server/choose/engine/compile-experiences.js';
import type {
  AssignmentPort,
  AssignmentRequest,
  ChooseDeps,
  ChooseLogger,
  ChooseRequest,
  ChooseResult,
} from '../../../server/choose/engine/choose-types.js';
import type { ExperienceConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { getAssignment, readExposures } from '../helpers/stored-rows.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { useApp } from '../helpers/use-test-app.js';

/** Insert-if-absent, like the unique key on (experience, unit); records every request it is asked. */
class FakeAssignments implements AssignmentPort {
  readonly stored = new Map<string, string>();
  readonly calls: AssignmentRequest[] = [];
  getOrCreateAssignments(requests: readonly AssignmentRequest[]): Promise<string[]> {
    this.calls.push(...requests);
    return Promise.resolve(requests.map((r) => {
      const key = `${r.experience}\u0000${r.unitKey}`;
      if (!this.stored.has(key)) this.stored.set(key, r.proposedVariation);
      return this.stored.get(key)!;
    }));
  }
}

class MemoryLogger implements ChooseLogger {
  readonly messages: string[] = [];
  warn(_details: Record<string, unknown>, message: string): void {
    this.messages.push(message);
  }
}

const variations = (): NonNullable<ExperienceConfig['variations']> => [
  { name: 'control', weight: 50, body: { title: 'control' } },
  { name: 'bold', weight: 50, body: { title: 'bold' } },
];

/** `hero` in the given lifecycle, next to a running experiment and a personalization of the same group. */
function lifecycle(hero: Partial<ExperienceConfig>): ExperienceConfig[] {
  return [
    { name: 'hero', group: 'home', variations: variations(), ...hero },
    { name: 'footer', group: 'home', variations: variations() },
    { name: 'note', group: 'home', body: { text: 'Hello' } },
  ];
}

const STOPPED_WITH_WINNER: Partial<ExperienceConfig> = { status: 'stopped', winner: 'bold' };
const WINNER_CHOICE = { name: 'hero', group: 'home', variation: 'bold', body: { title: 'bold' } };

const req = (over: Partial<ChooseRequest>): ChooseRequest => ({ profileId: 'p-1', ...over });
const names = (choices: readonly { name: string }[]): string[] => choices.map((c) => c.name);

function choose(
  experiences: ExperienceConfig[], request: ChooseRequest, deps: ChooseDeps, allowForce = false,
): ChooseResult | Promise<ChooseResult> {
  return chooseExperiences(compileExperiences(experiences, deps.logger), request, deps, { allowForce });
}

describe('experience lifecycle: engine', () => {
  // Spec as data: the lifecycles served to nobody, asked for by name and by group.
  const NOT_SERVED: { name: string; hero: Partial<ExperienceConfig> }[] = [
    { name: 'draft', hero: { status: 'draft' } },
    { name: 'draft personalization', hero: { status: 'draft', variations: undefined, body: { text: 'soon' } } },
    { name: 'stopped without a winner', hero: { status: 'stopped' } },
  ];
  for (const c of NOT_SERVED) {
    it(`${c.name}: not served by name nor by group, and the assignment port is not asked about it`, async () => {
      const assignments = new FakeAssignments();
      const byName = await choose(lifecycle(c.hero), req({ names: ['hero'] }), { assignments });
      const byGroup = await choose(lifecycle(c.hero), req({ groups: ['home'] }), { assignments });
      assert.deepEqual(byName.choices, []);
      assert.deepEqual(names(byGroup.choices), ['footer', 'note']);
      assert.deepEqual(names(byGroup.exposed), ['footer', 'note']);
      assert.deepEqual(assignments.calls.map((r) => r.experience), ['footer']);
    });

    it(`${c.name}: compiles to nothing`, () => {
      assert.deepEqual(names(compileExperiences(lifecycle(c.hero)).list), ['footer', 'note']);
    });
  }

  it('running (explicit) is served as without a status', async () => {
    const explicit = await choose(lifecycle({ status: 'running' }), req({ names: ['hero'] }), { assignments: new FakeAssignments() });
    const implicit = await choose(lifecycle({}), req({ names: ['hero'] }), { assignments: new FakeAssignments() });
    assert.deepEqual(explicit, implicit);
    assert.equal(explicit.choices.length, 1);
  });

  it('stopped with a winner: every unit is served the winner, none is stored, none is exposed', async () => {
    const assignments = new FakeAssignments();
    for (let i = 0; i < 50; i++) {
      const { choices, exposed } = await choose(lifecycle(STOPPED_WITH_WINNER), req({ names: ['hero'], profileId: `u-${i}` }), { assignments });
      assert.deepEqual(choices, [WINNER_CHOICE]);
      assert.deepEqual(exposed, []);
    }
    assert.equal(assignments.calls.length, 0);
  });

  it('stopped with a winner: a unit assigned another variation while running gets the winner', async () => {
    const assignments = new FakeAssignments();
    let unit = '';
    for (let i = 0; i < 50 && unit === ''; i++) {
      const { choices } = await choose(lifecycle({}), req({ names: ['hero'], profileId: `r-${i}` }), { assignments });
      if (choices[0]?.variation === 'control') unit = `r-${i}`;
    }
    assert.notEqual(unit, '', 'some unit was assigned control at 50/50');
    const asked = assignments.calls.length;
    const { choices, exposed } = await choose(lifecycle(STOPPED_WITH_WINNER), req({ names: ['hero'], profileId: unit }), { assignments });
    assert.deepEqual(choices, [WINNER_CHOICE]);
    assert.deepEqual(exposed, []);
    assert.equal(assignments.calls.length, asked);
    assert.equal(assignments.stored.get(`hero\u0000${unit}`), 'control', 'the stored assignment is kept');
  });

  it('stopped with a winner: devices, session stickiness, condition, namespace and traffic no longer matter', async () => {
    const ended: Partial<ExperienceConfig> = {
      ...STOPPED_WITH_WINNER, devices: ['mobile'], stickiness: 'session', condition: { plan: 'pro' },
      namespace: ['checkout', 0, 0.01], traffic: 0,
    };
    // Desktop, no sessionId, a free plan: each would have left the unit out of the running experiment.
    const { choices } = await choose(lifecycle(ended), req({ names: ['hero'], device: 'desktop', attributes: { plan: 'free' } }), { assignments: new FakeAssignments() });
    assert.deepEqual(choices, [WINNER_CHOICE]);
    // Its condition no longer decides anything, so asking for it reads no targeting attributes.
    assert.equal(needsTargeting(compileExperiences(lifecycle(ended)), ['hero'], ['home']), false);
  });

  it('stopped with a winner: a group serves the winner in config order; only the running members are exposed', async () => {
    const { choices, exposed } = await choose(lifecycle(STOPPED_WITH_WINNER), req({ groups: ['home'] }), { assignments: new FakeAssignments() });
    assert.deepEqual(names(choices), ['hero', 'footer', 'note']);
    assert.deepEqual(choices[0], WINNER_CHOICE);
    assert.deepEqual(names(exposed), ['footer', 'note']);
  });

  it('stopped with a winner: answers at once, without a promise, when nothing else needs the port', () => {
    const answer = choose(lifecycle(STOPPED_WITH_WINNER), req({ names: ['hero', 'note'] }), { assignments: new FakeAssignments() });
    assert.ok(!(answer instanceof Promise));
    assert.deepEqual(names(answer.choices), ['hero', 'note']);
    assert.deepEqual(names(answer.exposed), ['note']);
  });

  it('stopped with a winner: a QA force is not honoured (the experiment has ended)', async () => {
    const { choices, exposed } = await choose(
      lifecycle(STOPPED_WITH_WINNER), req({ names: ['hero'], force: { hero: 'control' } }), { assignments: new FakeAssignments() }, true,
    );
    assert.deepEqual(choices, [WINNER_CHOICE]);
    assert.deepEqual(exposed, []);
  });

  it('stopped with a winner that is not a variation (unvalidated config): left out with a warning', async () => {
    const logger = new MemoryLogger();
    const { choices } = await choose(lifecycle({ status: 'stopped', winner: 'nope' }), req({ names: ['hero'] }), { assignments: new FakeAssignments(), logger });
    assert.deepEqual(choices, []);
    assert.equal(logger.messages.length, 1);
  });
});

const P = 'acme/shop';
const URL_API = '/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret';

function serviceConfig(hero: Partial<ExperienceConfig>): ServiceConfigFile {
  return {
    organizations: { acme: { projects: { shop: {
      apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'], experiences: lifecycle(hero),
    } } } },
  };
}

interface Choice {
  name: string;
  group?: string;
  variation?: string;
  body: Record<string, unknown>;
}

for (const driver of DRIVERS) {
  describe(`experience lifecycle: choose API (${driver.name})`, () => {
    // The app of the experiment while it runs; each test builds the app of a later lifecycle on the same storage.
    const running = useApp(driver, { config: serviceConfig({}) });

    async function post(app: typeof running.app, profileId: string, sessionId: string, selection: { names?: string[]; groups?: string[] }): Promise<Choice[]> {
      const res = await app.inject({
        method: 'POST', url: URL_API, payload: { identification: { sourceId: 'web', profileId }, sessionId, ...selection },
      });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { choices: Choice[] }).choices;
    }

    /** The experiences exposed in `sessionId`, once `app` is closed (closing writes what it buffered). */
    async function exposedIn(sessionId: string): Promise<string[]> {
      const rows = await readExposures(running.storage, P);
      return rows.filter((r) => r.sessionId === sessionId).map((r) => r.experience).sort();
    }

    const NOT_SERVED: { name: string; hero: Partial<ExperienceConfig> }[] = [
      { name: 'draft', hero: { status: 'draft' } },
      { name: 'stopped without a winner', hero: { status: 'stopped' } },
    ];
    for (const c of NOT_SERVED) {
      it(`${c.name}: not served by name nor by group; no assignment, no exposure`, async () => {
        const app = await buildApp({ config: serviceConfig(c.hero), storage: running.storage });
        const session = `s-${c.hero.status}-${driver.name}`;
        try {
          assert.deepEqual(await post(app, 'ns-1', session, { names: ['hero'] }), []);
          assert.deepEqual(names(await post(app, 'ns-1', session, { groups: ['home'] })), ['footer', 'note']);
        } finally {
          await app.close();
        }
        assert.equal(await getAssignment(running.storage, P, 'hero', 'ns-1'), null);
        assert.deepEqual(await exposedIn(session), ['footer', 'note']);
      });
    }

    it('stopped with a winner: a new unit and one assigned another variation while running get the winner, by name and by group; no assignment, no exposure', async () => {
      let assigned = '';
      for (let i = 0; i < 50 && assigned === ''; i++) {
        const [hero] = await post(running.app, `was-${i}`, 's-running', { names: ['hero'] });
        if (hero?.variation === 'control') assigned = `was-${i}`;
      }
      assert.notEqual(assigned, '', 'some unit was assigned control at 50/50');

      const app = await buildApp({ config: serviceConfig(STOPPED_WITH_WINNER), storage: running.storage });
      const session = `s-winner-${driver.name}`;
      try {
        for (const unit of [assigned, 'new-1']) {
          assert.deepEqual(await post(app, unit, session, { names: ['hero'] }), [WINNER_CHOICE], unit);
          const group = await post(app, unit, session, { groups: ['home'] });
          assert.deepEqual(names(group), ['hero', 'footer', 'note'], unit);
          assert.deepEqual(group[0], WINNER_CHOICE, unit);
        }
      } finally {
        await app.close();
      }
      assert.equal((await getAssignment(running.storage, P, 'hero', assigned))?.variation, 'control', 'the running assignment is kept');
      assert.equal(await getAssignment(running.storage, P, 'hero', 'new-1'), null);
      // The running members of the group are exposed (once per unit, deduplicated in the session); hero never is.
      assert.deepEqual(await exposedIn(session), ['footer', 'footer', 'note', 'note']);
    });
  });
}
