// Exposure when seen, against our running service (web-test-runner starts dist/server.mjs with
// test/fixtures/recommendations.config.json and proxies /v1 to it): `<svc-experience>` asks the Choose API to record
// no exposure and reports one through the SDK's outbox when it shows the variation, so the results endpoint counts a
// visitor only once they were shown it — and exactly once, across reloads, tabs and a tab that died before sending.
// The experiment `seen-hero` (control/bold) is used by this file alone; each test compares units before and after.
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import { cleanup, makeSvc } from '../../test/helpers/svc.js';
import type { ServiceJs } from '../../src/index.js';
import { experiences, type ExperienceEventDetail, type SvcExperience } from './index.js';

const api = `${location.origin}/v1`;
const RESULTS = `${api}/acme/projects/shop/experiences/seen-hero/results`;

interface Answer {
  units: number;
  multipleExposures: number;
  variations: { name: string; units: number }[];
}

async function results(): Promise<Answer> {
  const response = await fetch(RESULTS, { headers: { Authorization: 'Bearer srv1.s3cret' } });
  expect(response.status, 'results').to.equal(200);
  return (await response.json()) as Answer;
}

/** An SDK for this page (profile and outbox in this browser's storage), with the experiences plugin. */
function sdk(): { svc: ServiceJs; remove: () => void } {
  const svc = makeSvc({ api, writeKey: 'web1.p4ss' });
  return { svc, remove: svc.use(experiences()) };
}

/** `<svc-experience name="seen-hero">` settled, with what it showed. */
async function show(timeout = 5000): Promise<{ el: SvcExperience; detail: ExperienceEventDetail }> {
  const el = await fixture<SvcExperience>(html`
    <svc-experience name="seen-hero" timeout=${timeout}>
      <p>Fallback</p>
      <template variation="control"><p>Control</p></template>
      <template variation="bold"><p>Bold</p></template>
    </svc-experience>`);
  const { detail } = await oneEvent(el, 'svc:experience');
  return { el, detail };
}

describe('exposure when seen (<svc-experience> against the service)', () => {
  afterEach(async () => {
    await cleanup();
  });

  it('counts a visitor shown the variation once, in the variation shown, across a reload and a second tab', async () => {
    const before = await results();
    const first = sdk();
    const { detail } = await show();
    expect(detail.status).to.equal('ready');
    const shown = detail.variation!;
    await first.svc.flush();
    first.remove();
    first.svc.destroy();
    // A reload, then a second tab: new SDK instances on the same browser profile, the same visitor shown again.
    for (let page = 0; page < 2; page++) {
      const again = sdk();
      const seen = await show();
      expect(seen.detail.variation, 'the same variation on every page').to.equal(shown);
      await again.svc.flush();
      again.remove();
    }
    const after = await results();
    expect(after.units - before.units, 'one unit for the visitor').to.equal(1);
    const unitsIn = (a: Answer, name: string): number => a.variations.find((v) => v.name === name)!.units;
    expect(unitsIn(after, shown) - unitsIn(before, shown), `counted in ${shown}`).to.equal(1);
    expect(after.multipleExposures).to.equal(before.multipleExposures);
  });

  it('does not count a visitor who kept the fallback because the answer came after the timeout', async () => {
    const before = await results();
    const { svc } = sdk();
    const { el, detail } = await show(0);
    expect(detail).to.include({ status: 'empty', reason: 'timeout' });
    expect(el.textContent).to.include('Fallback');
    // The answer did come (the visitor is assigned), later than the element would wait: it records no exposure.
    const [choice] = await svc.choose({ names: ['seen-hero'], deferExposure: true });
    expect(choice?.variation, 'the service answered').to.be.a('string');
    await svc.flush();
    const after = await results();
    expect(after.units, 'counted in no variation').to.equal(before.units);
  });

  it('counts a visitor whose tab died before the outbox sent the report, once the next page sends it', async () => {
    const before = await results();
    const dying = sdk();
    const { detail } = await show();
    expect(detail.status).to.equal('ready');
    // The tab dies: no flush, nothing sent; the report waits in the outbox's IndexedDB.
    dying.remove();
    dying.svc.destroy();
    expect((await results()).units, 'not sent yet').to.equal(before.units);
    // The next page on this browser starts an SDK, which sends what the outbox kept.
    const next = makeSvc({ api, writeKey: 'web1.p4ss' });
    await next.flush();
    const after = await results();
    expect(after.units - before.units).to.equal(1);
  });
});
