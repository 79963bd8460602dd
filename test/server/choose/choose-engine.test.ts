// The Choose engine's rules, one behaviour per test. The assignment store is faked in
// memory: it is the storage edge, and the real one is tested with SQLite/PostgreSQL elsewhere.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import type { ExperienceConfig } from '../../../server/config/config-types.js';
import { chooseExperiences as chooseCompiled } from '../../../server/choose/engine/choose-engine.js';
import { compileExperiences } from '../../../server/choose/engine/compile-experiences.js';
import { ChooseError } from '../../../server/choose/engine/choose-error.js';
import type {
  AssignmentPort,
  AssignmentRequest,
  ChooseDeps,
  ChooseLogger,
  ChooseRequest,
  FeedContext,
} from '../../../server/choose/engine/choose-types.js';
import { getBucketRanges } from '../../../server/choose/engine/bucket-ranges.js';
import { chooseVariation } from '../../../server/choose/engine/choose-variation.js';
import { hash } from '../../../server/choose/engine/hash.js';
import { inNamespace } from '../../../server/choose/engine/in-namespace.js';

/** The engine on `experiences` compiled for the call (the service compiles each project's config once). */
function chooseExperiences(experiences: readonly ExperienceConfig[], ...rest: Parameters<typeof chooseCompiled> extends [unknown, ...infer R] ? R : never) {
  return chooseCompiled(compileExperiences(experiences, rest[1].logger), ...rest);
}

/** Insert-if-absent, like the unique key on (experience, unit) in the database. */
class FakeAssignments implements AssignmentPort {
  readonly stored = new Map<string, string>();
  readonly calls: AssignmentRequest[] = [];
  batches = 0;
  constructor(private readonly sync = false) {}
  getOrCreateAssignments(requests: readonly AssignmentRequest[]): string[] | Promise<string[]> {
    this.batches++;
    const answers = requests.map((r) => {
      this.calls.push(r);
      const key = `${r.experience}\u0000${r.unitKey}`;
      let variation = this.stored.get(key);
      if (variation === undefined) {
        variation = r.proposedVariation;
        this.stored.set(key, variation);
      }
      return variation;
    });
    return this.sync ? answers : Promise.resolve(answers);
  }
}

/** A port with a cache in front of it: `knownAssignments` answers from `known` without a call. */
class KnownAssignments extends FakeAssignments {
  unitQuestions = 0;
  constructor(private readonly known: Record<string, string>) {
    super();
  }
  knownAssignments(unitKey: string): ReadonlyMap<string, string> | undefined {
    this.unitQuestions++;
    const mine = Object.entries(this.known).filter(([k]) => k.endsWith(`\u0000${unitKey}`));
    return mine.length === 0 ? undefined : new Map(mine.map(([k, v]) => [k.slice(0, k.indexOf('\u0000')), v]));
  }
}

class MemoryLogger implements ChooseLogger {
  readonly warnings: { details: Record<string, unknown>; message: string }[] = [];
  warn(details: Record<string, unknown>, message: string): void {
    this.warnings.push({ details, message });
  }
}

const fiftyFifty = (a = 'control', b = 'bold'): ExperienceConfig['variations'] => [
  { name: a, weight: 50, body: { title: a } },
  { name: b, weight: 50, body: { title: b } },
];

function baseConfig(): ExperienceConfig[] {
  return [
    { name: 'hero-banner', group: 'homepage', devices: ['desktop', 'mobile'], traffic: 100, stickiness: 'profile', variations: fiftyFifty() },
    { name: 'home-recs', group: 'homepage', feed: 1, limit: 8 },
    { name: 'welcome-note', body: { text: 'Hello again' } },
    { name: 'mobile-note', group: 'footer', devices: ['mobile'], body: { text: 'On the go' } },
    { name: 'footer-exp', group: 'footer', variations: fiftyFifty('a', 'b') },
    { name: 'session-exp', stickiness: 'session', variations: fiftyFifty('s1', 's2') },
    { name: 'pro-only', condition: { plan: 'pro' }, body: { text: 'Pro' } },
    { name: 'sale-page', condition: { url: { $regex: '/sale' }, device: 'desktop' }, body: { text: 'Sale' } },
    { name: 'no-traffic', traffic: 0, variations: fiftyFifty() },
    { name: 'half-traffic', traffic: 50, variations: fiftyFifty() },
    { name: 'ns-left', namespace: ['checkout', 0, 0.5], variations: fiftyFifty() },
    { name: 'ns-right', namespace: ['checkout', 0.5, 1], variations: fiftyFifty() },
    { name: 'seeded', seed: 'shared-seed', variations: fiftyFifty() },
    { name: 'legacy-v1', hashVersion: 1, variations: fiftyFifty() },
  ];
}

const config = baseConfig();
const deps = (over: Partial<ChooseDeps> = {}): ChooseDeps & { assignments: FakeAssignments } =>
  ({ assignments: new FakeAssignments(), ...over }) as ChooseDeps & { assignments: FakeAssignments };
const req = (over: Partial<ChooseRequest>): ChooseRequest => ({ profileId: 'p-1', ...over });
const names = (choices: { name: string }[]): string[] => choices.map((c) => c.name);
const units = (n: number, prefix = 'p-'): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** The variation index GrowthBook's primitives give `unit` (v2 by default, seed = name). */
function expectedIndex(seed: string, unit: string, weights: number[], coverage = 1, version: 1 | 2 = 2): number {
  return chooseVariation(hash(seed, unit, version)!, getBucketRanges(weights.length, coverage, weights));
}

describe('choose engine: selection', () => {
  const cases: { name: string; request: Partial<ChooseRequest>; expected: string[] }[] = [
    { name: 'names are served in request order', request: { names: ['welcome-note', 'hero-banner'] }, expected: ['welcome-note', 'hero-banner'] },
    { name: 'unknown names are absent, not an error', request: { names: ['nope', 'welcome-note'] }, expected: ['welcome-note'] },
    { name: 'a group serves its experiences in config order', request: { groups: ['homepage'] }, expected: ['hero-banner', 'home-recs'] },
    {
      name: 'several groups are served in config order, not request order',
      request: { groups: ['footer', 'homepage'], device: 'mobile' },
      expected: ['hero-banner', 'home-recs', 'mobile-note', 'footer-exp'],
    },
    {
      name: 'names then groups, each experience once',
      request: { names: ['home-recs', 'welcome-note'], groups: ['homepage'] },
      expected: ['home-recs', 'welcome-note', 'hero-banner'],
    },
    { name: 'a name repeated is served once', request: { names: ['welcome-note', 'welcome-note'] }, expected: ['welcome-note'] },
    { name: 'empty names is a valid request with no choices', request: { names: [] }, expected: [] },
    { name: 'an unknown group gives no choices', request: { groups: ['nope'] }, expected: [] },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const result = await chooseExperiences(config, req(c.request), deps({ feedProducts: async () => [] }));
      assert.deepEqual(names(result.choices), c.expected);
    });
  }

  it('the same names again select the same; other names, or names with groups, right after are not served that', async () => {
    // One config array for the whole test: its compiled form remembers the last names it selected.
    const experiences = baseConfig();
    const serve = async (request: Partial<ChooseRequest>) =>
      names((await chooseExperiences(experiences, req(request), deps({ feedProducts: async () => [] }))).choices);
    assert.deepEqual(await serve({ names: ['welcome-note', 'hero-banner'] }), ['welcome-note', 'hero-banner']);
    assert.deepEqual(await serve({ names: ['welcome-note', 'hero-banner'] }), ['welcome-note', 'hero-banner']);
    assert.deepEqual(await serve({ names: ['welcome-note'] }), ['welcome-note']);
    assert.deepEqual(await serve({ names: ['hero-banner', 'welcome-note'] }), ['hero-banner', 'welcome-note']);
    assert.deepEqual(await serve({ names: ['hero-banner', 'welcome-note'], groups: ['footer'] }), ['hero-banner', 'welcome-note', 'footer-exp']);
    assert.deepEqual(await serve({ names: ['hero-banner', 'welcome-note'] }), ['hero-banner', 'welcome-note']);
    assert.deepEqual(await serve({ names: ['hero-banner', 'nope'] }), ['hero-banner']);
  });

  it('neither names nor groups is a ChooseError names_or_groups_required, and nothing is stored', async () => {
    const d = deps();
    // A rejected promise, not a synchronous throw.
    const answer = chooseExperiences(config, req({}), d);
    assert.ok(answer instanceof Promise);
    await assert.rejects(answer, (e: unknown) => e instanceof ChooseError && e.code === 'names_or_groups_required');
    assert.equal(d.assignments.calls.length, 0);
  });
});

describe('choose engine: choice shapes and exposures', () => {
  it('an experiment answers {name, group, variation, body} with the body of its variation', async () => {
    const { choices } = await chooseExperiences(config, req({ names: ['hero-banner'] }), deps());
    const index = expectedIndex('hero-banner', 'p-1', [0.5, 0.5]);
    const variation = ['control', 'bold'][index]!;
    assert.deepEqual(choices, [{ name: 'hero-banner', group: 'homepage', variation, body: { title: variation } }]);
  });

  it('a personalization answers {name, body} without a variation (and without group when it has none)', async () => {
    const { choices } = await chooseExperiences(config, req({ names: ['welcome-note'] }), deps());
    assert.deepEqual(choices, [{ name: 'welcome-note', body: { text: 'Hello again' } }]);
  });

  it('every choice served is returned as exposed (the answer\'s own choices when none is forced)', async () => {
    const { choices, exposed } = await chooseExperiences(
      config,
      req({ names: ['hero-banner', 'welcome-note'], sessionId: 's-9', device: 'desktop' }),
      deps(),
    );
    assert.deepEqual(exposed.map((c) => [c.name, c.variation]), [['hero-banner', choices[0]!.variation], ['welcome-note', undefined]]);
    assert.equal(exposed, choices);
  });
});

describe('choose engine: enrollment rules', () => {
  it('devices: an experience limited to mobile is skipped on desktop', async () => {
    const { choices } = await chooseExperiences(config, req({ names: ['mobile-note'], device: 'desktop' }), deps());
    assert.deepEqual(choices, []);
  });

  it('devices: an experience limited to mobile is served on mobile', async () => {
    const { choices } = await chooseExperiences(config, req({ names: ['mobile-note'], device: 'mobile' }), deps());
    assert.deepEqual(names(choices), ['mobile-note']);
  });

  it('devices: a limited experience is skipped when the device is unknown', async () => {
    const { choices } = await chooseExperiences(config, req({ names: ['mobile-note'] }), deps());
    assert.deepEqual(choices, []);
  });

  it('devices: listing every device is no limitation, even without a device', async () => {
    const { choices } = await chooseExperiences(config, req({ names: ['hero-banner'] }), deps());
    assert.deepEqual(names(choices), ['hero-banner']);
  });

  it('condition: served when the attributes match', async () => {
    const { choices } = await chooseExperiences(config, req({ names: ['pro-only'], attributes: { plan: 'pro' } }), deps());
    assert.deepEqual(names(choices), ['pro-only']);
  });

  it('condition: skipped when the attributes do not match, and the assignment port is not called', async () => {
    const d = deps();
    const { choices } = await chooseExperiences(config, req({ names: ['pro-only'], attributes: { plan: 'free' } }), d);
    assert.deepEqual(choices, []);
    assert.equal(d.assignments.calls.length, 0);
  });

  it('condition: a frozen attributes object\'s results are remembered with it; another object is evaluated anew', async () => {
    const experiences = baseConfig();
    const serve = async (attributes: Record<string, unknown>) =>
      names((await chooseExperiences(experiences, req({ names: ['pro-only'], attributes }), deps())).choices);
    const pro = Object.freeze({ plan: 'pro' });
    assert.deepEqual(await serve(pro), ['pro-only']);
    assert.deepEqual(await serve(pro), ['pro-only']);
    assert.deepEqual(await serve(Object.freeze({ plan: 'free' })), []);
    // Not frozen: read on every request, so a change counts.
    const open: Record<string, unknown> = { plan: 'pro' };
    assert.deepEqual(await serve(open), ['pro-only']);
    open.plan = 'free';
    assert.deepEqual(await serve(open), []);
  });

  it('condition: sees the request device when attributes carry none', async () => {
    const attributes = { url: 'https://shop.example/sale/shoes' };
    const desktop = await chooseExperiences(config, req({ names: ['sale-page'], device: 'desktop', attributes }), deps());
    const mobile = await chooseExperiences(config, req({ names: ['sale-page'], device: 'mobile', attributes }), deps());
    assert.deepEqual([names(desktop.choices), names(mobile.choices)], [['sale-page'], []]);
  });

  it('condition: $inGroup uses the saved groups given to the engine', async () => {
    const experiences: ExperienceConfig[] = [{ name: 'vip', condition: { id: { $inGroup: 'vips' } }, body: { text: 'hi' } }];
    const d = deps({ savedGroups: { vips: ['u-7'] } });
    const vip = await chooseExperiences(experiences, req({ names: ['vip'], attributes: { id: 'u-7' } }), d);
    const other = await chooseExperiences(experiences, req({ names: ['vip'], attributes: { id: 'u-8' } }), d);
    assert.deepEqual([vip.choices.length, other.choices.length], [1, 0]);
  });

  it('traffic 0 enrolls nobody and never calls the assignment port', async () => {
    const d = deps();
    for (const unit of units(200)) {
      const { choices } = await chooseExperiences(config, req({ names: ['no-traffic'], profileId: unit }), d);
      assert.deepEqual(choices, []);
    }
    assert.equal(d.assignments.calls.length, 0);
  });

  it('traffic 50 enrolls exactly the units GrowthBook coverage 0.5 enrolls, about half of them', async () => {
    const d = deps();
    let enrolled = 0;
    for (const unit of units(2000)) {
      const { choices } = await chooseExperiences(config, req({ names: ['half-traffic'], profileId: unit }), d);
      const index = expectedIndex('half-traffic', unit, [0.5, 0.5], 0.5);
      assert.equal(choices.length, index < 0 ? 0 : 1, unit);
      if (index >= 0) {
        enrolled++;
        assert.equal(choices[0]!.variation, ['control', 'bold'][index]);
      }
    }
    assert.ok(enrolled > 900 && enrolled < 1100, `enrolled ${enrolled} of 2000`);
    assert.equal(d.assignments.calls.length, enrolled, 'the port is called only for enrolled units');
  });

  it('traffic applies to a personalization too', async () => {
    const experiences: ExperienceConfig[] = [{ name: 'promo', traffic: 30, body: { text: 'x' } }];
    let served = 0;
    for (const unit of units(2000)) {
      const { choices } = await chooseExperiences(experiences, req({ names: ['promo'], profileId: unit }), deps());
      assert.equal(choices.length, hash('promo', unit, 2)! < 0.3 ? 1 : 0, unit);
      served += choices.length;
    }
    assert.ok(served > 500 && served < 700, `served ${served} of 2000`);
  });

  it('namespace: experiments sharing a namespace with disjoint ranges never both enroll a unit', async () => {
    for (const unit of units(500)) {
      const { choices } = await chooseExperiences(config, req({ names: ['ns-left', 'ns-right'], profileId: unit }), deps());
      const expected = inNamespace(unit, ['checkout', 0, 0.5]) ? ['ns-left'] : ['ns-right'];
      assert.deepEqual(names(choices), expected, unit);
    }
  });

  it('seed defaults to the experience name', async () => {
    for (const unit of units(100)) {
      const { choices } = await chooseExperiences(config, req({ names: ['hero-banner'], profileId: unit }), deps());
      assert.equal(choices[0]!.variation, ['control', 'bold'][expectedIndex('hero-banner', unit, [0.5, 0.5])], unit);
    }
  });

  it('an explicit seed replaces the name in the hash', async () => {
    let differsFromName = 0;
    for (const unit of units(100)) {
      const { choices } = await chooseExperiences(config, req({ names: ['seeded'], profileId: unit }), deps());
      const bySeed = expectedIndex('shared-seed', unit, [0.5, 0.5]);
      assert.equal(choices[0]!.variation, ['control', 'bold'][bySeed], unit);
      if (bySeed !== expectedIndex('seeded', unit, [0.5, 0.5])) differsFromName++;
    }
    assert.ok(differsFromName > 0, 'the seed must matter');
  });

  it('hashVersion 1 is kept for experiences that use it, and the port is told the version', async () => {
    const d = deps();
    for (const unit of units(100)) {
      const { choices } = await chooseExperiences(config, req({ names: ['legacy-v1'], profileId: unit }), d);
      assert.equal(choices[0]!.variation, ['control', 'bold'][expectedIndex('legacy-v1', unit, [0.5, 0.5], 1, 1)], unit);
    }
    assert.ok(d.assignments.calls.every((c) => c.hashVersion === 1));
  });

  it('hashVersion defaults to 2', async () => {
    const d = deps();
    await chooseExperiences(config, req({ names: ['hero-banner'] }), d);
    assert.equal(d.assignments.calls[0]!.hashVersion, 2);
  });

  it('weights not summing to 100 fall back to equal weights (GrowthBook)', async () => {
    const experiences: ExperienceConfig[] = [
      { name: 'bad-weights', variations: [{ name: 'a', weight: 90, body: {} }, { name: 'b', weight: 90, body: {} }] },
    ];
    for (const unit of units(100)) {
      const { choices } = await chooseExperiences(experiences, req({ names: ['bad-weights'], profileId: unit }), deps());
      assert.equal(choices[0]!.variation, ['a', 'b'][expectedIndex('bad-weights', unit, [0.5, 0.5])], unit);
    }
  });
});

describe('choose engine: session stickiness', () => {
  it('uses the session id as the unit', async () => {
    const d = deps();
    const { choices } = await chooseExperiences(config, req({ names: ['session-exp'], sessionId: 's-42' }), d);
    assert.equal(choices[0]!.variation, ['s1', 's2'][expectedIndex('session-exp', 's-42', [0.5, 0.5])]);
    assert.equal(d.assignments.calls[0]!.unitKey, 's-42');
  });

  it('the same profile in different sessions can get different variations', async () => {
    const seen = new Set<string | undefined>();
    for (const s of units(20, 's-')) {
      const { choices } = await chooseExperiences(config, req({ names: ['session-exp'], sessionId: s }), deps());
      seen.add(choices[0]!.variation);
    }
    assert.equal(seen.size, 2);
  });

  it('without a sessionId is a ChooseError session_id_required, and nothing is stored', async () => {
    const d = deps();
    await assert.rejects(
      async () => chooseExperiences(config, req({ names: ['hero-banner', 'session-exp'] }), d),
      (e: unknown) => e instanceof ChooseError && e.code === 'session_id_required',
    );
    assert.equal(d.assignments.calls.length, 0);
  });
});

describe('choose engine: sticky first assignment', () => {
  it('changing 50/50 to 90/10 moves nobody already assigned; new units follow 90/10', async () => {
    const store = new FakeAssignments();
    const before: ExperienceConfig[] = [{ name: 'checkout', variations: fiftyFifty() }];
    const after: ExperienceConfig[] = [
      { name: 'checkout', variations: [{ name: 'control', weight: 90, body: { title: 'control' } }, { name: 'bold', weight: 10, body: { title: 'bold' } }] },
    ];
    const first = new Map<string, string>();
    for (const unit of units(1000)) {
      const { choices } = await chooseExperiences(before, req({ names: ['checkout'], profileId: unit }), { assignments: store });
      first.set(unit, choices[0]!.variation!);
    }
    const firstBold = [...first.values()].filter((v) => v === 'bold').length;
    assert.ok(firstBold > 430 && firstBold < 570, `bold ${firstBold} of 1000 at 50/50`);

    let wouldMove = 0;
    for (const unit of units(1000)) {
      const { choices } = await chooseExperiences(after, req({ names: ['checkout'], profileId: unit }), { assignments: store });
      assert.equal(choices[0]!.variation, first.get(unit), `${unit} moved`);
      assert.deepEqual(choices[0]!.body, { title: first.get(unit) });
      if (['control', 'bold'][expectedIndex('checkout', unit, [0.9, 0.1])] !== first.get(unit)) wouldMove++;
    }
    assert.ok(wouldMove > 300, 'the new weights would have moved many units without the store');

    let newBold = 0;
    for (const unit of units(1000, 'new-')) {
      const { choices } = await chooseExperiences(after, req({ names: ['checkout'], profileId: unit }), { assignments: store });
      assert.equal(choices[0]!.variation, ['control', 'bold'][expectedIndex('checkout', unit, [0.9, 0.1])], unit);
      if (choices[0]!.variation === 'bold') newBold++;
    }
    assert.ok(newBold > 60 && newBold < 140, `bold ${newBold} of 1000 at 90/10`);
  });

  it('a stored variation removed from config serves the hash proposal, without overwriting the store', async () => {
    const store = new FakeAssignments();
    store.stored.set('hero-banner\u0000p-1', 'retired');
    const { choices, exposed } = await chooseExperiences(config, req({ names: ['hero-banner'] }), { assignments: store });
    const proposed = ['control', 'bold'][expectedIndex('hero-banner', 'p-1', [0.5, 0.5])];
    assert.equal(choices[0]!.variation, proposed);
    assert.equal(exposed[0]!.variation, proposed);
    assert.equal(store.stored.get('hero-banner\u0000p-1'), 'retired');
  });

  it('a synchronous port answer is served like an asynchronous one', async () => {
    const store = new FakeAssignments(true);
    store.stored.set('hero-banner\u0000p-1', 'bold');
    store.stored.set('footer-exp\u0000p-1', 'a');
    const { choices } = await chooseExperiences(config, req({ names: ['hero-banner', 'footer-exp'] }), { assignments: store });
    assert.deepEqual(choices.map((c) => c.variation), ['bold', 'a']);
  });

  it('the port is called once per request with every enrolled experiment', async () => {
    const store = new FakeAssignments();
    store.stored.set('footer-exp\u0000p-1', 'b');
    const { choices } = await chooseExperiences(config, req({ names: ['hero-banner', 'welcome-note', 'footer-exp', 'no-traffic'] }), { assignments: store });
    assert.equal(store.batches, 1);
    assert.deepEqual(store.calls.map((c) => c.experience), ['hero-banner', 'footer-exp']);
    assert.equal(choices[2]!.variation, 'b');
  });

  it('a known stored variation of a full-traffic experiment is served without asking the port', async () => {
    // The cache (knownAssignments) says 'bold' for a unit whose hash proposes 'control', and vice versa.
    const unit = units(50).find((u) => expectedIndex('hero-banner', u, [0.5, 0.5]) === 0)!;
    const store = new KnownAssignments({ [`hero-banner\u0000${unit}`]: 'bold', [`footer-exp\u0000${unit}`]: 'retired' });
    const { choices, exposed } = await chooseExperiences(config, req({ names: ['hero-banner', 'footer-exp'], profileId: unit }), { assignments: store });
    assert.equal(choices[0]!.variation, 'bold');
    assert.deepEqual(choices[0]!.body, { title: 'bold' });
    assert.equal(exposed[0]!.variation, 'bold');
    // The known variations were asked for once, for the unit, not once per experience.
    assert.equal(store.unitQuestions, 1);
    // Only the experiment whose known variation left the config went to the port (and was served today's hash).
    assert.deepEqual(store.calls.map((c) => c.experience), ['footer-exp']);
    assert.equal(choices[1]!.variation, ['a', 'b'][expectedIndex('footer-exp', unit, [0.5, 0.5])]);
  });

  it('a unit\'s known variations, asked again as the same map: an entry added since is served, a new config is served its own bodies', async () => {
    // Like the service's assignment cache: one map per unit, which only ever gains entries.
    const known = new Map<string, string>([['hero-banner', 'bold']]);
    const port: AssignmentPort = {
      knownAssignments: () => known,
      getOrCreateAssignments: () => Promise.reject(new Error('a known unit must not reach the store')),
    };
    const experiences = baseConfig();
    const serve = async (list: ExperienceConfig[]) =>
      (await chooseExperiences(list, req({ names: ['hero-banner', 'footer-exp'] }), { assignments: port })).choices;
    await assert.rejects(serve(experiences), /must not reach the store/);
    known.set('footer-exp', 'a');
    const first = await serve(experiences);
    assert.deepEqual(first.map((c) => [c.name, c.variation]), [['hero-banner', 'bold'], ['footer-exp', 'a']]);
    assert.deepEqual(await serve(experiences), first);
    // A reloaded config (a new array) with new bodies: the same stored variations, the new bodies.
    const reloaded = baseConfig().map((e) => (e.name === 'hero-banner' ? { ...e, variations: fiftyFifty()!.map((v) => ({ ...v, body: { title: `${v.name} v2` } })) } : e));
    const again = await serve(reloaded);
    assert.deepEqual(again.map((c) => [c.name, c.variation, c.body]), [['hero-banner', 'bold', { title: 'bold v2' }], ['footer-exp', 'a', { title: 'a' }]]);
  });

  it('a port answering at once (all cached) gives an answer at once, partial traffic included', () => {
    const port: AssignmentPort = { getOrCreateAssignments: (requests) => requests.map((r) => r.proposedVariation) };
    const result = chooseExperiences(config, req({ names: ['half-traffic', 'hero-banner'], profileId: 'p-1' }), { assignments: port });
    assert.ok(!(result instanceof Promise));
    assert.ok(result.choices.some((c) => c.name === 'hero-banner'));
  });

  it('answers at once when every port answer is at hand, with a promise when the store is asked', async () => {
    const known = new KnownAssignments({ 'hero-banner\u0000p-1': 'bold' });
    const atOnce = chooseExperiences(config, req({ names: ['hero-banner', 'welcome-note'] }), { assignments: known });
    assert.ok(!(atOnce instanceof Promise));
    assert.deepEqual(atOnce.choices.map((c) => [c.name, c.variation]), [['hero-banner', 'bold'], ['welcome-note', undefined]]);
    const asked = chooseExperiences(config, req({ names: ['footer-exp'] }), { assignments: known });
    assert.ok(asked instanceof Promise);
    assert.equal((await asked).choices[0]!.name, 'footer-exp');
  });

  it('traffic under 100 % still hashes a unit with a known variation: lowering traffic un-enrolls it', async () => {
    const outside = units(200).find((u) => expectedIndex('half-traffic', u, [0.5, 0.5], 0.5) === -1)!;
    const store = new KnownAssignments({ [`half-traffic\u0000${outside}`]: 'bold' });
    const { choices } = await chooseExperiences(config, req({ names: ['half-traffic'], profileId: outside }), { assignments: store });
    assert.deepEqual(choices, []);
  });

  it('a failing assignment port rejects rather than serving an unstored variation', async () => {
    const failing: AssignmentPort = { getOrCreateAssignments: () => Promise.reject(new Error('db down')) };
    await assert.rejects(async () => chooseExperiences(config, req({ names: ['hero-banner'] }), { assignments: failing }), /db down/);
  });
});

describe('choose engine: forced variations (QA)', () => {
  it('an apiKey caller forces a variation: served, not stored, not exposed', async () => {
    const d = deps();
    const proposed = ['control', 'bold'][expectedIndex('hero-banner', 'p-1', [0.5, 0.5])]!;
    const forced = proposed === 'bold' ? 'control' : 'bold';
    const { choices, exposed } = await chooseExperiences(config, req({ names: ['hero-banner'], force: { 'hero-banner': forced } }), d, { allowForce: true });
    assert.deepEqual(choices, [{ name: 'hero-banner', group: 'homepage', variation: forced, body: { title: forced } }]);
    assert.deepEqual(exposed, []);
    assert.equal(d.assignments.calls.length, 0);
  });

  it('a forced choice next to unforced ones: only the unforced ones are exposed, in order', async () => {
    const { choices, exposed } = await chooseExperiences(config, req({ names: ['welcome-note', 'hero-banner', 'footer-exp'], force: { 'hero-banner': 'bold' } }), deps(), { allowForce: true });
    assert.deepEqual(names(choices), ['welcome-note', 'hero-banner', 'footer-exp']);
    assert.deepEqual(names([...exposed]), ['welcome-note', 'footer-exp']);
  });

  it('force bypasses targeting and traffic', async () => {
    const { choices } = await chooseExperiences(config, req({ names: ['no-traffic'], force: { 'no-traffic': 'bold' } }), deps(), { allowForce: true });
    assert.equal(choices[0]!.variation, 'bold');
  });

  it('force is ignored without allowForce (browser callers)', async () => {
    const { choices } = await chooseExperiences(config, req({ names: ['no-traffic'], force: { 'no-traffic': 'bold' } }), deps());
    assert.deepEqual(choices, []);
  });

  it('forcing a variation that does not exist falls back to normal assignment', async () => {
    const d = deps();
    const { choices } = await chooseExperiences(config, req({ names: ['hero-banner'], force: { 'hero-banner': 'nope' } }), d, { allowForce: true });
    assert.equal(choices[0]!.variation, ['control', 'bold'][expectedIndex('hero-banner', 'p-1', [0.5, 0.5])]);
    assert.equal(d.assignments.calls.length, 1);
  });
});

describe('choose engine: feed-backed experiences', () => {
  it('the body is {products} from the feed port, called with feed id, limit and context', async () => {
    const calls: [number, number, FeedContext][] = [];
    const feedProducts = async (feedId: number, limit: number, context: FeedContext) => {
      calls.push([feedId, limit, context]);
      return [{ id: 'p1', title: 'Mug' }];
    };
    const { choices, exposed } = await chooseExperiences(config, req({ names: ['home-recs'], sessionId: 's-1', device: 'mobile' }), deps({ feedProducts }));
    assert.deepEqual(choices, [{ name: 'home-recs', group: 'homepage', body: { products: [{ id: 'p1', title: 'Mug' }] } }]);
    assert.deepEqual(calls, [[1, 8, { experience: 'home-recs', profileId: 'p-1', sessionId: 's-1', device: 'mobile' }]]);
    assert.deepEqual(exposed, choices);
  });

  it('without a feed port the experience is skipped with a warning, and the engine keeps no state about it', async () => {
    const experiences = baseConfig();
    const logger = new MemoryLogger();
    for (let i = 0; i < 2; i++) {
      const { choices } = await chooseExperiences(experiences, req({ groups: ['homepage'] }), deps({ logger }));
      assert.deepEqual(names(choices), ['hero-banner']);
    }
    assert.equal(logger.warnings.filter((w) => w.details['experience'] === 'home-recs').length, 2);
  });

  it('a failing feed skips that experience with a warning and keeps the others', async () => {
    const logger = new MemoryLogger();
    const feedProducts = () => Promise.reject(new Error('feed down'));
    const { choices, exposed } = await chooseExperiences(config, req({ names: ['home-recs', 'welcome-note'] }), deps({ feedProducts, logger }));
    assert.deepEqual(names(choices), ['welcome-note']);
    assert.deepEqual(names([...exposed]), ['welcome-note']);
    assert.equal(logger.warnings.length, 1);
  });
});

describe('choose engine: config handling', () => {
  it('an experience with nothing to serve is left out with a warning', async () => {
    const logger = new MemoryLogger();
    const experiences: ExperienceConfig[] = [{ name: 'empty' }, { name: 'ok', body: { a: 1 } }];
    const { choices } = await chooseExperiences(experiences, req({ names: ['empty', 'ok'] }), deps({ logger }));
    assert.deepEqual(names(choices), ['ok']);
    assert.equal(logger.warnings.length, 1);
  });

  it('a new config array is compiled afresh (config reloads take effect)', async () => {
    const v1: ExperienceConfig[] = [{ name: 'x', body: { v: 1 } }];
    const v2: ExperienceConfig[] = [{ name: 'x', body: { v: 2 } }];
    const a = await chooseExperiences(v1, req({ names: ['x'] }), deps());
    const b = await chooseExperiences(v2, req({ names: ['x'] }), deps());
    assert.deepEqual([a.choices[0]!.body, b.choices[0]!.body], [{ v: 1 }, { v: 2 }]);
  });
});
