// <svc-results> against our running service: web-test-runner starts dist/server.mjs with
// test/fixtures/recommendations.config.json and proxies /v1 to it (test/helpers/service-under-test.mjs). Project
// acme/shop has the experiments `results-hero` (control/bold), `results-empty` (never exposed here) and
// `results-sequential` (control/bold, sequential with a Holm–Bonferroni correction) and the metrics purchase
// (binomial), orders (count) and revenue (sum of price), all on "Product ordered". The data is made
// through the service's own API: a Choose request exposes a profile, a tracked event makes it purchase.
import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import sinon from 'sinon';
import type { MetricResult, ResultsAnalysis, ResultsAnswer, ResultsError, SvcResults, VariationStats } from './index.js';
import { defineResults } from './index.js';
import { settled } from '../../test/helpers/settled.js';

const api = `${location.origin}/v1`;
const API_KEY = 'srv1.s3cret';
const WRITE_AUTH = `Basic ${btoa('web1:p4ss')}`;
const shop = `${api}/acme/projects/shop`;

defineResults();

type Device = 'mobile' | 'desktop';

/** What the test exposed and tracked: units per variation, and per device and variation; the profiles per variation. */
interface Seeded {
  units: number;
  byVariation: Record<string, number>;
  byDevice: Record<Device, Record<string, number>>;
  profiles: Record<string, string[]>;
}

/**
 * Exposes `count` new profiles to results-hero (alternating mobile and desktop) and makes some purchase: bold's
 * every second and third of three, control's every second on desktop and never on mobile — so that the mobile
 * section has a control mean of 0 and its uplifts cannot be computed.
 */
async function seed(count: number): Promise<Seeded> {
  const seeded: Seeded = { units: 0, byVariation: {}, byDevice: { mobile: {}, desktop: {} }, profiles: {} };
  const orders: Record<string, unknown>[] = [];
  const seen: Record<string, number> = {};
  await Promise.all(Array.from({ length: count }, async (_, i) => {
    // Fixed ids (the service under test starts on an empty database): the same split on every run, so no assertion
    // about it rests on chance.
    const profileId = `results-element-${i}`;
    const sessionId = crypto.randomUUID();
    const device: Device = i % 2 ? 'mobile' : 'desktop';
    const response = await fetch(`${shop}/optimization/choose-api?apiKey=${API_KEY}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ identification: { sourceId: 'web', profileId }, names: ['results-hero'], sessionId, device }),
    });
    expect(response.status, 'choose').to.equal(200);
    const { choices } = (await response.json()) as { choices: { name: string; variation: string }[] };
    const variation = choices[0]!.variation;
    seeded.units++;
    seeded.byVariation[variation] = (seeded.byVariation[variation] ?? 0) + 1;
    seeded.byDevice[device][variation] = (seeded.byDevice[device][variation] ?? 0) + 1;
    (seeded.profiles[variation] ??= []).push(profileId);
    const nth = (seen[`${variation}/${device}`] = (seen[`${variation}/${device}`] ?? 0) + 1);
    const buys = variation === 'control' ? device === 'desktop' && nth % 2 === 0 : nth % 3 !== 0;
    if (!buys) return;
    orders.push({
      eventId: crypto.randomUUID(), type: 'product', name: 'Product ordered', profileId, sessionId, pageId: crypto.randomUUID(),
      timestamp: new Date().toISOString(), data: { productId: 'p1', quantity: 1, price: 12.5 },
    });
  }));
  await track(orders);
  return seeded;
}

async function track(batch: Record<string, unknown>[]): Promise<void> {
  const response = await fetch(`${shop}/sources/web/track`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: WRITE_AUTH },
    body: JSON.stringify({ batch, sentAt: new Date().toISOString() }),
  });
  expect(response.status, 'track').to.equal(200);
}

/** Identifies each of `profiles` as the same user: the results count them as one person. */
async function merge(profiles: string[]): Promise<void> {
  const userId = `merged-${crypto.randomUUID()}`;
  await track(profiles.map((profileId) => ({
    eventId: crypto.randomUUID(), type: 'identify', name: 'Signed in', profileId, sessionId: crypto.randomUUID(),
    pageId: crypto.randomUUID(), timestamp: new Date().toISOString(), userId,
  })));
}

/** The service's own answer, read without the element. */
async function fetchAnswer(experience: string, query = ''): Promise<{ status: number; body: ResultsAnswer & { error?: ResultsError } }> {
  const response = await fetch(`${shop}/experiences/${experience}/results${query.replace(/^&/, '?')}`, { headers: { Authorization: `Bearer ${API_KEY}` } });
  return { status: response.status, body: await response.json() };
}

/** An element with its key set, as a page would set it: from script, after the markup. */
async function results(template: ReturnType<typeof html>, apiKey = API_KEY): Promise<SvcResults> {
  const el = await fixture<SvcResults>(template);
  el.apiKey = apiKey;
  await settled(el);
  return el;
}

const root = (el: SvcResults): ShadowRoot => el.shadowRoot!;
const tables = (el: SvcResults, scope: ParentNode = root(el)) => [...scope.querySelectorAll('table')];
const rowOf = (table: HTMLTableElement, variation: string) =>
  [...table.tBodies[0]!.rows].find((r) => r.cells[0]!.textContent!.trim().startsWith(variation))!;
const headers = (table: HTMLTableElement) => [...table.tHead!.rows[0]!.cells].map((c) => c.textContent!.replace(/\s+/g, ' ').trim());
/** The cell of `variation`'s row in the column whose header starts with `header`. */
const cellOf = (table: HTMLTableElement, variation: string, header: string): HTMLTableCellElement => {
  const column = headers(table).findIndex((h) => h.startsWith(header));
  if (column < 0) throw new Error(`no column ${header} in ${headers(table).join(' | ')}`);
  return rowOf(table, variation).cells[column] as HTMLTableCellElement;
};
/** The text as laid out (a block's text on a line of its own, so an interval under its effect reads apart from it). */
const textOf = (node: Element | null | undefined): string => ((node as HTMLElement | null)?.innerText ?? '').replace(/\s+/g, ' ').trim();

describe('<svc-results> against the service', () => {
  let seeded: Seeded;
  before(async () => {
    seeded = await seed(40);
  });

  it('is ready with one table per metric, whose units are the units exposed', async () => {
    const el = await results(html`<svc-results organization="acme" project="shop" experience="results-hero"></svc-results>`);
    expect(el.getAttribute('status')).to.equal('ready');
    const { status, body } = await fetchAnswer('results-hero');
    expect(status).to.equal(200);
    expect(body.units).to.equal(seeded.units);
    expect(el.results!.units).to.equal(seeded.units);
    for (const v of body.variations) expect(v.units, v.name).to.equal(seeded.byVariation[v.name]);
    expect(tables(el).map((t) => t.caption!.textContent!.trim().split(' ')[0])).to.deep.equal(['purchase', 'orders', 'revenue']);
    for (const table of tables(el)) {
      expect(table.getAttribute('part')).to.equal('table');
      const units = [...table.tBodies[0]!.rows].map((r) => Number(r.cells[1]!.textContent!.replace(/\D/g, '')));
      expect(units.reduce((a, b) => a + b, 0), table.caption!.textContent!).to.equal(seeded.units);
      expect(Number(rowOf(table, 'bold').cells[1]!.textContent!.replace(/\D/g, ''))).to.equal(seeded.byVariation.bold);
    }
    expect(root(el).querySelector('[part="header"]')!.textContent).to.include('results-hero');
  });

  it('shows conversion as a percent and the uplift with its interval, as the service computed them', async () => {
    const el = await results(html`<svc-results organization="acme" project="shop" experience="results-hero" lang="en"></svc-results>`);
    const purchase = el.results!.metrics.find((m) => m.name === 'purchase')!;
    const bold = purchase.variations.find((v) => v.name === 'bold')!;
    const table = tables(el)[0]!;
    const percent = (n: number, digits: number) => `${(n * 100).toFixed(digits)}%`;
    expect(cellOf(table, 'bold', 'Conversion rate').textContent!.trim()).to.equal(percent(bold.mean!, 2));
    const uplift = cellOf(table, 'bold', 'Uplift (95% CI)').textContent!;
    expect(uplift).to.include(`${bold.uplift! > 0 ? '+' : ''}${percent(bold.uplift!, 1)}`);
    expect(uplift).to.include(' to ');
    // The answer carries chance to win; a frequentist experiment's table does not show it.
    expect(bold.chanceToWin).to.be.a('number');
    expect(headers(table).filter((h) => h === 'Chance to win' || h === 'Risk')).to.deep.equal([]);
    expect(cellOf(table, 'bold', 'p-value').textContent!.trim()).to.match(/^([01]\.\d{4}|< 0\.0001)$/);
  });

  it('draws an interval chart per metric: a labelled SVG with a zero line and a bar coloured by where the interval lies', async () => {
    const el = await results(html`<svc-results organization="acme" project="shop" experience="results-hero"></svc-results>`);
    const charts = [...root(el).querySelectorAll('[part="chart"]')];
    expect(charts).to.have.length(3);
    el.results!.metrics.forEach((metric, i) => {
      const svg = charts[i]!.querySelector('svg')!;
      expect(svg.getAttribute('role')).to.equal('img');
      expect(svg.getAttribute('aria-label')).to.include(`Uplift of ${metric.name}`).and.to.include('bold');
      expect(svg.querySelectorAll('line[data-zero]')).to.have.length(1);
      const ci = metric.variations.find((v) => v.name === 'bold')!.ci!;
      const verdict = ci[0] > 0 ? 'positive' : ci[1] < 0 ? 'negative' : 'neutral';
      const row = svg.querySelector('g[data-variation="bold"]')!;
      expect(row.classList.contains(verdict), `${metric.name}: ${ci}`).to.equal(true);
      expect(row.querySelector('rect.bar')).not.to.equal(null);
      expect(row.querySelector('circle.point')).not.to.equal(null);
      // The zero line lies within the bar exactly when the interval spans zero.
      const zero = svg.querySelector('line[data-zero]')!.getBoundingClientRect().x;
      const bar = row.querySelector('rect.bar')!.getBoundingClientRect();
      expect(zero >= bar.left && zero <= bar.right, `${metric.name}: ${ci}`).to.equal(verdict === 'neutral');
    });
  });

  it('adds a section per device with dimension="device", with the units exposed on each', async () => {
    const el = await results(html`
      <svc-results organization="acme" project="shop" experience="results-hero" dimension="device"></svc-results>`);
    const sections = [...root(el).querySelectorAll('section[part="section"]')];
    expect(sections.map((s) => s.querySelector('h3')!.textContent!.split('(')[0]!.trim())).to.deep.equal([
      'All units', 'Device: desktop', 'Device: mobile',
    ]);
    for (const [i, device] of (['desktop', 'mobile'] as const).entries()) {
      const section = sections[i + 1]!;
      expect(tables(el, section)).to.have.length(3);
      const units = [...tables(el, section)[0]!.tBodies[0]!.rows].map((r) => Number(r.cells[1]!.textContent!.replace(/\D/g, '')));
      expect(units).to.deep.equal(['control', 'bold'].map((v) => seeded.byDevice[device][v] ?? 0));
    }
  });

  it('shows a statistic the service could not compute as a dash with its reason for screen readers', async () => {
    // On mobile no control unit purchased: a control mean of 0 leaves the relative uplift undefined.
    const el = await results(html`
      <svc-results organization="acme" project="shop" experience="results-hero" dimension="device" metrics="purchase"></svc-results>`);
    const mobile = el.results!.dimensions!.find((d) => d.value === 'mobile')!;
    expect(mobile.metrics[0]!.variations.find((v) => v.name === 'bold')!.uplift).to.equal(null);
    const section = [...root(el).querySelectorAll('section')].find((s) => s.querySelector('h3')!.textContent!.includes('mobile'))!;
    const cell = rowOf(tables(el, section)[0]!, 'bold').cells[3]!;
    expect(cell.querySelector('[aria-hidden="true"]')!.textContent).to.equal('—');
    expect(cell.querySelector('.sr-only')!.textContent).to.include('control mean is 0');
    const chart = section.querySelector('svg')!;
    expect(chart.getAttribute('aria-label')).to.include('bold: not enough data');
  });

  it('asks only for the metrics of the metrics attribute', async () => {
    const el = await results(html`
      <svc-results organization="acme" project="shop" experience="results-hero" metrics="revenue, orders"></svc-results>`);
    expect(el.results!.metrics.map((m) => m.name)).to.have.members(['revenue', 'orders']);
    expect(tables(el)).to.have.length(2);
  });

  it('shows the service\'s absolute differences, p-values and significance in absolute mode', async () => {
    const el = await results(html`<svc-results organization="acme" project="shop" experience="results-hero" difference="absolute" lang="en"></svc-results>`);
    el.results!.metrics.forEach((metric, i) => {
      const table = tables(el)[i]!;
      const bold = metric.variations.find((v) => v.name === 'bold')!;
      const cell = cellOf(table, 'bold', 'Difference (95% CI)');
      const written = Number(textOf(cell).split(' ')[0]!.replace('+', ''));
      const factor = metric.type === 'binomial' ? 100 : 1;
      expect(written, metric.name).to.be.closeTo(bold.absolute!.effect! * factor, 0.05);
      expect(textOf(cell).includes(' pp '), metric.name).to.equal(metric.type === 'binomial');
      const p = bold.absolute!.pValue!;
      expect(textOf(cellOf(table, 'bold', 'p-value')), metric.name).to.equal(p < 0.0001 ? '< 0.0001' : p.toFixed(4));
      // Absolute mode is judged by the absolute test (its own significance).
      const words = bold.absolute!.significant ? (bold.absolute!.effect! > 0 ? 'Significantly better' : 'Significantly worse') : 'Not significant';
      expect(textOf(cellOf(table, 'bold', 'Significance')), metric.name).to.equal(words);
    });
  });

  it('says which intervals the service computed: fixed-horizon by default, sequential with a correction where the experiment asks', async () => {
    const hero = await results(html`<svc-results organization="acme" project="shop" experience="results-hero"></svc-results>`);
    expect(hero.results!.analysis).to.include({ interval: 'fixed-horizon', correction: 'none', alpha: 0.05 });
    expect(textOf(root(hero).querySelector('[part="analysis"]'))).to.include('95% fixed-horizon confidence intervals — read them once');
    expect(headers(tables(hero)[0]!).some((h) => h.startsWith('Adjusted'))).to.equal(false);

    // Its own units, made here: profiles exposed to results-sequential, a third of them purchasing.
    const orders: Record<string, unknown>[] = [];
    await Promise.all(Array.from({ length: 12 }, async (_, i) => {
      const profileId = `results-sequential-${i}`;
      const sessionId = crypto.randomUUID();
      const response = await fetch(`${shop}/optimization/choose-api?apiKey=${API_KEY}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ identification: { sourceId: 'web', profileId }, names: ['results-sequential'], sessionId }),
      });
      expect(response.status, 'choose').to.equal(200);
      if (i % 3) return;
      orders.push({
        eventId: crypto.randomUUID(), type: 'product', name: 'Product ordered', profileId, sessionId, pageId: crypto.randomUUID(),
        timestamp: new Date().toISOString(), data: { productId: 'p1', quantity: 1, price: 12.5 },
      });
    }));
    await track(orders);
    const sequential = await results(html`<svc-results organization="acme" project="shop" experience="results-sequential"></svc-results>`);
    expect(sequential.status).to.equal('ready');
    expect(sequential.results!.analysis).to.include({ interval: 'sequential', correction: 'holm-bonferroni' });
    const note = textOf(root(sequential).querySelector('[part="analysis"]'));
    expect(note).to.include('95% sequential confidence intervals — safe to check daily').and.to.include('(Holm–Bonferroni)');
    expect(headers(tables(sequential)[0]!)).to.include('Adjusted p-value Holm–Bonferroni');
    expect(textOf(root(sequential).querySelector('[part="chart"] figcaption'))).to.include('95% sequential confidence intervals');
    await expect(sequential).to.be.accessible();
  });

  it('is empty, saying so, for an experiment nobody was exposed to', async () => {
    const el = await results(html`<svc-results organization="acme" project="shop" experience="results-empty"></svc-results>`);
    expect(el.getAttribute('status')).to.equal('empty');
    expect(el.results!.units).to.equal(0);
    const message = root(el).querySelector('[part~="state"]')!;
    expect(message.getAttribute('part')).to.equal('state empty');
    expect(message.textContent).to.include('No one has been exposed').and.to.include('results-empty');
    expect(tables(el)).to.have.length(0);
  });

  describe('answers the running service does not produce here (the answer stubbed, as the contract shapes it)', () => {
    const answer = (over: Partial<ResultsAnswer>): ResultsAnswer => ({
      experience: 'stubbed', control: 'control', units: 0, multipleExposures: 0, srm: { pValue: null, mismatch: false },
      analysis: { alpha: 0.05, interval: 'fixed-horizon', correction: 'none' },
      variations: [{ name: 'control', weight: 50, units: 0 }, { name: 'b', weight: 50, units: 0 }], metrics: [], ...over,
    } as ResultsAnswer);
    afterEach(() => sinon.restore());

    /** `<svc-results>` showing `body` as the service's answer (attributes of the element in `attrs`). */
    async function showing(body: ResultsAnswer, difference?: string): Promise<SvcResults> {
      sinon.stub(window, 'fetch').resolves(new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }));
      return results(html`<svc-results organization="acme" project="shop" experience="stubbed" lang="en" difference=${difference ?? 'relative'}></svc-results>`);
    }

    it('reads with the page\'s own session cookie when told to (`session`), sending no key', async () => {
      sinon.stub(window, 'fetch').resolves(new Response(JSON.stringify(answer({})), { headers: { 'content-type': 'application/json' } }));
      const el = await fixture<SvcResults>(html`<svc-results session organization="acme" project="shop" experience="stubbed"></svc-results>`);
      await settled(el);
      expect(el.status).to.equal('empty');
      const [url, init] = (window.fetch as sinon.SinonStub).firstCall.args as [string, RequestInit];
      expect(url).to.match(/\/v1\/acme\/projects\/shop\/experiences\/stubbed\/results$/);
      expect(init.credentials).to.equal('same-origin');
      expect(init.headers).to.not.have.property('Authorization');
    });

    /** A two-variation metric: control, and bold with its comparison (`bold` overrides any of its figures). */
    const metric = (over: Partial<MetricResult>, control: Partial<VariationStats>, bold: Partial<VariationStats>): MetricResult => ({
      name: 'purchase', type: 'binomial', inverse: false, cupedApplied: false, ...over,
      variations: [
        { name: 'control', units: 1000, total: 100, mean: 0.1, stddev: 0.3, ...control },
        {
          name: 'bold', units: 1000, total: 130, mean: 0.13, stddev: 0.336, uplift: 0.3, ci: [0.05, 0.55], pValue: 0.012,
          significant: true, chanceToWin: 0.994, risk: 0.0012, credibleInterval: [0.06, 0.54],
          absolute: { effect: 0.03, ci: [0.005, 0.055], pValue: 0.013 }, ...bold,
        },
      ],
    });
    const twoVariations = { units: 2000, variations: [{ name: 'control', weight: 50, units: 1000 }, { name: 'bold', weight: 50, units: 1000 }] };
    const purchase = metric({}, {}, {});
    const revenue = metric({ name: 'revenue', type: 'sum' }, { total: 4110, mean: 4.11, stddev: 18 }, {
      total: 4426, mean: 4.426, stddev: 19, uplift: 0.0769, ci: [0.017, 0.137], absolute: { effect: 0.316, ci: [0.069, 0.562], pValue: 0.004 },
    });

    it('switches to absolute differences by keyboard, reflected as difference="absolute": percentage points for a conversion, plain numbers for a sum', async () => {
      const el = await showing(answer({ ...twoVariations, metrics: [purchase, revenue] }));
      expect(el.getAttribute('difference')).to.equal('relative');
      const [conversion, sum] = tables(el);
      expect(textOf(cellOf(conversion!, 'bold', 'Uplift (95% CI)'))).to.equal('+30.0% +5.0% to +55.0%');
      const relative = root(el).querySelector<HTMLInputElement>('[part="difference"] input[value="relative"]')!;
      expect(relative.checked).to.equal(true);
      relative.focus();
      await sendKeys({ press: 'ArrowRight' });
      await el.updateComplete;
      expect(el.difference).to.equal('absolute');
      expect(el.getAttribute('difference')).to.equal('absolute');
      expect(root(el).querySelector<HTMLInputElement>('[part="difference"] input[value="absolute"]')!.checked).to.equal(true);
      const points = cellOf(conversion!, 'bold', 'Difference (95% CI)');
      // "pp" to the eye, "percentage points" to a screen reader.
      expect([...points.querySelectorAll('[aria-hidden="true"]')].map((n) => n.textContent!.trim())).to.deep.equal(['pp', 'pp', 'pp']);
      expect(textOf(points).replace(/ pp percentage points/g, ' pp')).to.equal('+3.00 pp +0.50 pp to +5.50 pp');
      expect(textOf(cellOf(conversion!, 'bold', 'p-value'))).to.equal('0.0130');
      expect(textOf(cellOf(sum!, 'bold', 'Difference (95% CI)'))).to.equal('+0.316 +0.069 to +0.562');
      expect(textOf(cellOf(sum!, 'bold', 'p-value'))).to.equal('0.0040');
      const chart = root(el).querySelector('[part="chart"] svg')!;
      expect(chart.getAttribute('aria-label')).to.include('Difference of purchase against control in percentage points (pp)')
        .and.to.include('bold: difference +3.00 pp, 95% interval +0.50 pp to +5.50 pp; significantly better');
      expect(chart.querySelector('g[data-variation="bold"] text')!.textContent).to.equal('bold: +3.00 pp (+0.50 pp to +5.50 pp)');
      // Back, by the other arrow: the answer held is shown again, nothing is fetched.
      await sendKeys({ press: 'ArrowLeft' });
      await el.updateComplete;
      expect(el.getAttribute('difference')).to.equal('relative');
      expect(textOf(cellOf(conversion!, 'bold', 'Uplift (95% CI)'))).to.equal('+30.0% +5.0% to +55.0%');
      expect((window.fetch as sinon.SinonStub).callCount).to.equal(1);
    });

    it('starts absolute with the attribute, and shows the absolute difference where a control mean of 0 leaves no uplift', async () => {
      const zero = metric({ name: 'orders', type: 'count' }, { total: 0, mean: 0, stddev: 0 }, {
        total: 12, mean: 0.012, uplift: null, ci: null, pValue: 0.03, chanceToWin: null, risk: null, absolute: { effect: 0.012, ci: [0.0012, 0.0228], pValue: 0.03 },
      });
      const el = await showing(answer({ ...twoVariations, metrics: [zero] }), 'absolute');
      expect(textOf(cellOf(tables(el)[0]!, 'bold', 'Difference (95% CI)'))).to.equal('+0.0120 +0.0012 to +0.0228');
      el.difference = 'relative';
      await el.updateComplete;
      expect(cellOf(tables(el)[0]!, 'bold', 'Uplift').querySelector('.sr-only')!.textContent).to.include('control mean is 0');
    });

    const readings: { name: string; analysis: ResultsAnalysis; level: string; says: string[] }[] = [
      {
        name: 'sequential intervals, safe to check daily',
        analysis: { alpha: 0.05, interval: 'sequential', sequentialTuning: 5000, correction: 'none' },
        level: '95%', says: ['95% sequential confidence intervals — safe to check daily', 'the p-value is below 0.05'],
      },
      {
        name: 'fixed-horizon intervals, read once at the planned end',
        analysis: { alpha: 0.05, interval: 'fixed-horizon', correction: 'none' },
        level: '95%', says: ['95% fixed-horizon confidence intervals — read them once, at the planned end', 'checking early', 'inflates false positives'],
      },
      {
        name: 'the level of the experiment\'s alpha (0.1: 90%)',
        analysis: { alpha: 0.1, interval: 'fixed-horizon', correction: 'none' },
        level: '90%', says: ['90% fixed-horizon confidence intervals', 'the p-value is below 0.1'],
      },
      {
        name: 'the correction that significance uses',
        analysis: { alpha: 0.025, interval: 'sequential', correction: 'benjamini-hochberg' },
        level: '97.5%', says: ['97.5% sequential confidence intervals', 'adjusted for the metrics and variations compared (Benjamini–Hochberg) is below 0.025'],
      },
    ];
    for (const r of readings) {
      it(`says which intervals the answer carries: ${r.name}`, async () => {
        const el = await showing(answer({ ...twoVariations, analysis: r.analysis, metrics: [purchase] }));
        const note = textOf(root(el).querySelector('[part="analysis"]'));
        for (const words of r.says) expect(note).to.include(words);
        expect(headers(tables(el)[0]!)).to.include(`Uplift (${r.level} CI)`);
        expect(textOf(root(el).querySelector('[part="chart"] figcaption'))).to.include(`with ${r.level} ${r.analysis.interval} confidence intervals`);
      });
    }

    it('says what checking daily costs, in the experiment\'s own numbers: the tuning, the units and how many times as wide', async () => {
      const sequential: ResultsAnalysis = {
        alpha: 0.05, interval: 'sequential', sequentialTuning: 5000, correction: 'none',
        sequential: { tuning: 5000, units: 181, widthRatio: 2.698746579250546 },
      };
      const el = await showing(answer({ ...twoVariations, analysis: sequential, metrics: [purchase] }));
      const note = textOf(root(el).querySelector('[part="analysis"]'));
      expect(note).to.include('Intervals are tuned for 5,000 units; at 181 units they are 2.7×').and.to.include('as wide as a fixed-horizon test\'s.');
      expect(root(el).querySelector('[part="analysis"] .sr-only')!.textContent).to.equal(' times');
      await expect(el).to.be.accessible();
      sinon.restore();
      const none = await showing(answer({ ...twoVariations, analysis: { ...sequential, sequential: { tuning: 5000, units: 0, widthRatio: null } }, metrics: [purchase] }));
      expect(textOf(root(none).querySelector('[part="analysis"]')), 'no units yet: no ratio').to.not.include('tuned for');
    });

    it('shows the adjusted p-value under its correction\'s name, and significance in words, only with a correction', async () => {
      const calm = { ...purchase.variations[1]!, name: 'calm', uplift: 0.04, ci: [-0.1, 0.18] as [number, number], pValue: 0.31, pValueAdjusted: 0.62, significant: false };
      const corrected = { ...purchase, variations: [...purchase.variations.slice(0, 1), { ...purchase.variations[1]!, pValueAdjusted: 0.024 }, calm] };
      const el = await showing(answer({
        ...twoVariations, analysis: { alpha: 0.05, interval: 'fixed-horizon', correction: 'holm-bonferroni' }, metrics: [corrected],
      }));
      const table = tables(el)[0]!;
      expect(headers(table)).to.include('Adjusted p-value Holm–Bonferroni');
      expect(textOf(cellOf(table, 'bold', 'Adjusted p-value'))).to.equal('0.0240');
      expect(textOf(cellOf(table, 'calm', 'Adjusted p-value'))).to.equal('0.6200');
      expect(textOf(cellOf(table, 'bold', 'Significance'))).to.equal('Significantly better');
      expect(textOf(cellOf(table, 'calm', 'Significance'))).to.equal('Not significant');
      expect(cellOf(table, 'control', 'Significance').querySelector('.sr-only')!.textContent).to.include('the control is the baseline');

      sinon.restore();
      const plain = await showing(answer({ ...twoVariations, metrics: [purchase] }));
      expect(headers(tables(plain)[0]!).some((h) => h.startsWith('Adjusted'))).to.equal(false);
    });

    it('judges absolute mode by the absolute test: its own adjusted p-value and significance', async () => {
      // Relative not significant after the correction, absolute significant: each view says its own.
      const split = metric({}, {}, {
        pValue: 0.03, pValueAdjusted: 0.06, significant: false,
        absolute: { effect: 0.03, ci: [0.005, 0.055], pValue: 0.01, pValueAdjusted: 0.02, significant: true },
      });
      const el = await showing(answer({
        ...twoVariations, analysis: { alpha: 0.05, interval: 'fixed-horizon', correction: 'holm-bonferroni' }, metrics: [split],
      }), 'absolute');
      const table = tables(el)[0]!;
      expect(textOf(cellOf(table, 'bold', 'Adjusted p-value'))).to.equal('0.0200');
      expect(textOf(cellOf(table, 'bold', 'Significance'))).to.equal('Significantly better');
      sinon.restore();
      const relative = tables(await showing(answer({
        ...twoVariations, analysis: { alpha: 0.05, interval: 'fixed-horizon', correction: 'holm-bonferroni' }, metrics: [split],
      })))[0]!;
      expect(textOf(cellOf(relative, 'bold', 'Adjusted p-value'))).to.equal('0.0600');
      expect(textOf(cellOf(relative, 'bold', 'Significance'))).to.equal('Not significant');
    });

    const frequentist: { name: string; analysis: ResultsAnalysis }[] = [
      { name: 'fixed-horizon', analysis: { alpha: 0.05, interval: 'fixed-horizon', correction: 'none' } },
      { name: 'sequential', analysis: { alpha: 0.05, interval: 'sequential', sequentialTuning: 5000, correction: 'none' } },
      { name: 'frequentist, said', analysis: { alpha: 0.05, interval: 'fixed-horizon', engine: 'frequentist', correction: 'holm-bonferroni' } },
    ];
    for (const { name, analysis } of frequentist) {
      it(`shows no chance to win or risk where a frequentist test decides the experiment: ${name}`, async () => {
        const el = await showing(answer({ ...twoVariations, analysis, metrics: [purchase] }));
        const shown = [...root(el).querySelectorAll('table[part="table"] th')].map((th) => textOf(th));
        expect(shown.filter((h) => /chance to win|risk/i.test(h))).to.deep.equal([]);
        expect(el.toCsv().split(/\r?\n/)[0]).to.include('chance_to_win,risk');
        await expect(el).to.be.accessible();
      });
    }

    it('shows chance to win and risk where a Bayesian test decides the experiment', async () => {
      const el = await showing(answer({
        ...twoVariations, analysis: { alpha: 0.05, interval: 'fixed-horizon', engine: 'bayesian', correction: 'none' }, metrics: [purchase],
      }));
      const table = tables(el)[0]!;
      expect(textOf(cellOf(table, 'bold', 'Chance to win'))).to.equal('99.4%');
      expect(textOf(cellOf(table, 'bold', 'Risk'))).to.equal('0.12%');
      await expect(el).to.be.accessible();
    });

    it('never writes a chance to win of 100.0% or 0.0% the statistics do not claim', async () => {
      const sure = metric({}, {}, { chanceToWin: 0.99996 });
      const el = await showing(answer({ ...twoVariations, analysis: { alpha: 0.05, interval: 'fixed-horizon', engine: 'bayesian', correction: 'none' }, metrics: [sure, metric({ name: 'orders', type: 'count' }, {}, { chanceToWin: 0.00003 })] }));
      expect(textOf(cellOf(tables(el)[0]!, 'bold', 'Chance to win'))).to.equal('> 99.9%');
      expect(textOf(cellOf(tables(el)[1]!, 'bold', 'Chance to win'))).to.equal('< 0.1%');
    });

    it('counts a significant drop of a lower-is-better metric as better, in words, colour and chart', async () => {
      const bounce = metric({ name: 'bounce', inverse: true }, { total: 420, mean: 0.42 }, {
        total: 390, mean: 0.39, uplift: -0.0714, ci: [-0.102, -0.04], significant: true, chanceToWin: 0.9999,
        absolute: { effect: -0.03, ci: [-0.043, -0.017], pValue: 0.00002 },
      });
      const el = await showing(answer({ ...twoVariations, metrics: [bounce] }));
      const table = tables(el)[0]!;
      expect(textOf(table.caption)).to.equal('bounce · conversion · lower is better');
      expect(textOf(cellOf(table, 'bold', 'Significance'))).to.equal('Significantly better');
      expect(cellOf(table, 'bold', 'Uplift').classList.contains('positive')).to.equal(true);
      const chart = root(el).querySelector('[part="chart"]')!;
      expect(chart.querySelector('g[data-variation="bold"]')!.classList.contains('positive')).to.equal(true);
      expect(chart.querySelector('svg')!.getAttribute('aria-label')).to.include('lower is better').and.to.include('significantly better');
    });

    const captions: { name: string; metric: Partial<MetricResult>; caption: string }[] = [
      { name: 'a cap at an amount', metric: { name: 'revenue', type: 'sum', cap: { type: 'absolute', value: 500, capValue: 500 } }, caption: 'revenue · sum per unit · capped at 500' },
      {
        name: 'a cap at a percentile, with the value it came to',
        metric: { name: 'revenue', type: 'sum', cap: { type: 'percentile', value: 0.99, capValue: 412.5 } },
        caption: 'revenue · sum per unit · capped at the 99th percentile (412.5)',
      },
      {
        name: 'a cap at a percentile of no units yet',
        metric: { name: 'revenue', type: 'sum', cap: { type: 'percentile', value: 0.995, capValue: null } },
        caption: 'revenue · sum per unit · capped at the 99.5th percentile',
      },
      { name: 'a ratio, with what it divides', metric: { name: 'order-value', type: 'ratio', numerator: 'revenue', denominator: 'orders' }, caption: 'order-value · ratio: revenue / orders' },
    ];
    for (const c of captions) {
      it(`names ${c.name} in the metric's caption`, async () => {
        const el = await showing(answer({ ...twoVariations, metrics: [metric(c.metric, {}, {})] }));
        expect(textOf(tables(el)[0]!.caption)).to.equal(c.caption);
      });
    }

    it('shows a ratio\'s sums under its mean', async () => {
      const ratio = metric({ name: 'order-value', type: 'ratio', numerator: 'revenue', denominator: 'orders' },
        { total: 41230.5, denominator: 1130, mean: 36.487 }, { total: 44120.2, denominator: 1322, mean: 33.374 });
      const el = await showing(answer({ ...twoVariations, metrics: [ratio] }));
      expect(textOf(cellOf(tables(el)[0]!, 'bold', 'Ratio'))).to.equal('33.4 44,120.2 / 1,322');
    });

    it('gives CUPED\'s θ and adjusted means in a note under the table (the table\'s means are raw)', async () => {
      const cuped = metric({ name: 'revenue', type: 'sum', cupedApplied: true }, { total: 4110, mean: 4.11, stddev: 18 }, {
        total: 4426, mean: 4.426, cuped: { theta: 0.4321, mean: 4.4011, stddev: 15.2, controlMean: 4.121, controlStddev: 14.9 },
      });
      const el = await showing(answer({ ...twoVariations, metrics: [cuped, purchase] }));
      expect(textOf(tables(el)[0]!.caption)).to.include('CUPED variance reduction');
      const notes = [...root(el).querySelectorAll('[part="cuped"]')];
      expect(notes).to.have.length(1);
      expect(textOf(notes[0])).to.include('bold: θ = 0.432, adjusted mean 4.40 against 4.12 for control');
      expect(textOf(cellOf(tables(el)[0]!, 'bold', 'Sum per unit'))).to.equal('4.43');
    });

    it('is accessible showing absolute differences, a correction, a lower-is-better and a capped metric', async () => {
      const bounce = metric({ name: 'bounce', inverse: true }, { mean: 0.42 }, { mean: 0.39, uplift: -0.07, ci: [-0.1, -0.04], pValueAdjusted: 0.001 });
      const capped = { ...revenue, cap: { type: 'percentile' as const, value: 0.99, capValue: 412.5 } };
      const el = await showing(answer({
        ...twoVariations, analysis: { alpha: 0.05, interval: 'sequential', correction: 'holm-bonferroni' }, metrics: [purchase, bounce, capped],
      }), 'absolute');
      expect(tables(el)).to.have.length(3);
      await expect(el).to.be.accessible();
    });

    it('says why it is empty when every exposed unit saw more than one variation', async () => {
      sinon.stub(window, 'fetch').resolves(new Response(JSON.stringify(answer({ multipleExposures: 3 })), { headers: { 'content-type': 'application/json' } }));
      const el = await results(html`<svc-results organization="acme" project="shop" experience="stubbed"></svc-results>`);
      expect(el.getAttribute('status')).to.equal('empty');
      const text = root(el).querySelector('[part~="state"]')!.textContent!.replace(/\s+/g, ' ');
      expect(text).to.include('3 units were exposed to stubbed but saw more than one variation');
      expect(text).not.to.include('No one has been exposed');
    });

    it('writes the configured weights as they are in the mismatch banner (90.5 / 4.75 / 4.75)', async () => {
      const variations = [{ name: 'control', weight: 90.5, units: 500 }, { name: 'b', weight: 4.75, units: 250 }, { name: 'c', weight: 4.75, units: 250 }];
      sinon.stub(window, 'fetch').resolves(new Response(JSON.stringify(answer({ units: 1000, variations, srm: { pValue: 0, mismatch: true } })), { headers: { 'content-type': 'application/json' } }));
      const el = await results(html`<svc-results organization="acme" project="shop" experience="stubbed"></svc-results>`);
      expect(root(el).querySelector('[part="banner"]')!.textContent).to.include('(90.5 / 4.75 / 4.75)');
    });
  });

  const failures = [
    { name: 'an unknown experience (404)', experience: 'no-such-experiment', apiKey: API_KEY, status: 404, code: 'experience_not_found' },
    { name: 'a wrong key (401)', experience: 'results-hero', apiKey: 'srv1.wrong', status: 401, code: 'invalid_credentials' },
    { name: 'a write key, which cannot read results (401)', experience: 'results-hero', apiKey: 'web1.p4ss', status: 401, code: 'invalid_credentials' },
  ];
  for (const failure of failures) {
    it(`shows the service's message and fires svc:results-error for ${failure.name}`, async () => {
      const response = await fetch(`${shop}/experiences/${failure.experience}/results`, { headers: { Authorization: `Bearer ${failure.apiKey}` } });
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(response.status).to.equal(failure.status);
      const el = await fixture<SvcResults>(html`<svc-results organization="acme" project="shop" experience=${failure.experience}></svc-results>`);
      const fired = new Promise<CustomEvent<ResultsError>>((resolve) => document.addEventListener('svc:results-error', resolve, { once: true }));
      el.apiKey = failure.apiKey;
      const event = await fired;
      await settled(el);
      expect(el.getAttribute('status')).to.equal('error');
      expect(event.detail).to.deep.equal({ status: failure.status, code: failure.code, message: error.message });
      const message = root(el).querySelector('[part~="error"]')!;
      expect(message.getAttribute('role')).to.equal('alert');
      expect(message.textContent).to.include(error.message);
    });
  }

  it('never puts the API key in an attribute, of the element or inside it', async () => {
    const el = await results(html`<svc-results organization="acme" project="shop" experience="results-hero"></svc-results>`);
    expect(el.apiKey).to.equal(API_KEY);
    expect(el.outerHTML).not.to.include('s3cret');
    expect(root(el).innerHTML).not.to.include('s3cret');
    expect(el.getAttributeNames()).to.have.members(['organization', 'project', 'experience', 'status', 'difference']);
    // nor in a URL: the element sends it in the Authorization header (URLs end up in history and access logs)
    const requested = performance.getEntriesByType('resource').map((e) => e.name).filter((u) => u.includes('/experiences/results-hero/results'));
    expect(requested.length).to.be.greaterThan(0);
    for (const url of requested) expect(url).not.to.include('apiKey');
    // and an apikey attribute in markup is not read: the element waits for the property
    const markup = await fixture<SvcResults>(html`<svc-results organization="acme" project="shop" experience="results-hero" apikey=${API_KEY}></svc-results>`);
    expect(markup.apiKey).to.equal('');
    expect(markup.status).to.equal('loading');
  });

  it('fires svc:results with the answer once rendered (bubbling out of shadow roots)', async () => {
    const el = await fixture<SvcResults>(html`<svc-results organization="acme" project="shop" experience="results-hero"></svc-results>`);
    const fired = new Promise<CustomEvent<ResultsAnswer>>((resolve) => window.addEventListener('svc:results', resolve, { once: true }));
    el.apiKey = API_KEY;
    const event = await fired;
    expect(event.bubbles && event.composed).to.equal(true);
    expect(event.detail).to.equal(el.results);
    expect(event.detail.units).to.equal(seeded.units);
    expect(el.getAttribute('status')).to.equal('ready');
    expect(tables(el)).to.have.length(3);
  });

  it('shows a progress status while loading, and fetches again when an attribute changes or on refresh()', async () => {
    const el = await fixture<SvcResults>(html`<svc-results organization="acme" project="shop" experience="results-empty"></svc-results>`);
    const waiting = root(el).querySelector('[part~="loading"]')!;
    expect(waiting.getAttribute('role')).to.equal('status');
    expect(waiting.textContent).to.include('Loading results');
    el.apiKey = API_KEY;
    await settled(el);
    expect(el.status).to.equal('empty');
    el.setAttribute('experience', 'results-hero');
    await el.updateComplete;
    expect(el.status).to.equal('loading');
    await settled(el);
    expect(el.status).to.equal('ready');
    const refreshed = el.refresh();
    expect(el.status).to.equal('loading');
    await refreshed;
    await settled(el);
    expect(el.status).to.equal('ready');
  });

  it('writes numbers in the language of the page', async () => {
    const lang = document.documentElement.lang;
    document.documentElement.lang = 'de';
    try {
      const el = await results(html`<svc-results organization="acme" project="shop" experience="results-hero"></svc-results>`);
      expect(rowOf(tables(el)[0]!, 'bold').cells[2]!.textContent!.trim()).to.match(/^\d+,\d\d\s%$/);
    } finally {
      document.documentElement.lang = lang;
    }
  });

  it('has no warning banner and no note while the split matches the weights and nobody saw two variations', async () => {
    const el = await results(html`<svc-results organization="acme" project="shop" experience="results-hero"></svc-results>`);
    expect(el.results!.srm.mismatch).to.equal(false);
    expect(el.results!.multipleExposures).to.equal(0);
    expect(root(el).querySelector('[part="banner"]')).to.equal(null);
    expect(root(el).querySelector('[part="header"]')!.textContent).not.to.include('more than one variation');
  });

  it('is accessible while loading, ready (with dimensions), empty and in error', async () => {
    const loading = await fixture<SvcResults>(html`<svc-results organization="acme" project="shop" experience="results-hero"></svc-results>`);
    await expect(loading).to.be.accessible();
    const ready = await results(html`<svc-results organization="acme" project="shop" experience="results-hero" dimension="device"></svc-results>`);
    expect(ready.status).to.equal('ready');
    await expect(ready).to.be.accessible();
    const empty = await results(html`<svc-results organization="acme" project="shop" experience="results-empty"></svc-results>`);
    expect(empty.status).to.equal('empty');
    await expect(empty).to.be.accessible();
    const error = await results(html`<svc-results organization="acme" project="shop" experience="nope"></svc-results>`);
    expect(error.status).to.equal('error');
    await expect(error).to.be.accessible();
  });

  it('lets the table scroll inside its own container at 390 px, the page does not', async () => {
    const wrapper = await fixture<HTMLDivElement>(html`<div style="width: 390px"><svc-results organization="acme" project="shop" experience="results-hero"></svc-results></div>`);
    const el = wrapper.querySelector('svc-results')!;
    el.apiKey = API_KEY;
    await settled(el);
    const scroller = root(el).querySelector<HTMLElement>('[part="table-scroll"]')!;
    expect(scroller.scrollWidth).to.be.greaterThan(scroller.clientWidth);
    expect(scroller.tabIndex).to.equal(0); // reachable by keyboard, to scroll it with the arrow keys
    expect(el.getBoundingClientRect().width).to.equal(390);
    expect(wrapper.scrollWidth).to.equal(390);
    expect(root(el).querySelector('svg')!.getBoundingClientRect().width).to.be.at.most(390);
  });

  // Runs after the tests above: it changes who is whom for the rest of the file.
  describe('once identify has merged profiles into one person', () => {
    before(async () => {
      // Every control profile and one of bold's become one person, exposed to both variations: the results leave
      // it out, so control has no unit left and the split no longer matches 50/50.
      await merge([...seeded.profiles.control!, seeded.profiles.bold![0]!]);
    });

    it('warns of the sample ratio mismatch in an alert banner, and notes the person exposed to both', async () => {
      const el = await results(html`<svc-results organization="acme" project="shop" experience="results-hero"></svc-results>`);
      expect(el.results!.srm.mismatch).to.equal(true);
      expect(el.results!.multipleExposures).to.equal(1);
      const banner = root(el).querySelector('[part="banner"]')!;
      expect(banner.getAttribute('role')).to.equal('alert');
      expect(banner.textContent).to.include('Sample ratio mismatch').and.to.include('50 / 50');
      expect(root(el).querySelector('[part="header"]')!.textContent).to.include('1 unit was exposed to more than one variation');
      await expect(el).to.be.accessible();
    });

    it('shows a control without units as dashes that say why', async () => {
      const el = await results(html`<svc-results organization="acme" project="shop" experience="results-hero" metrics="purchase"></svc-results>`);
      const table = tables(el)[0]!;
      expect(rowOf(table, 'control').cells[1]!.textContent!.trim()).to.equal('0');
      expect(rowOf(table, 'control').cells[2]!.querySelector('.sr-only')!.textContent).to.include('no units in this variation');
      expect(rowOf(table, 'bold').cells[3]!.querySelector('.sr-only')!.textContent).to.include('no units in the control');
    });
  });
});
