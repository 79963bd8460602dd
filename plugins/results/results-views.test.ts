// <svc-results> on the views of an experiment the service answers now: its phases, the roles of its metrics and the
// guardrails a variation harms, the date graph (`series=day`), intervals cut at −100%, the breakdown by a dimension,
// and the CSV export. The running service under test has no experiment with phases, roles or harms, and accepts only
// `dimension=device`, so the answers are stubbed, shaped as the service sends them (wire/results-answer.ts).
import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import sinon from 'sinon';
import type { MetricResult, ResultsAnswer, ResultsPhase, ResultsView, SeriesPoint, SvcResults, VariationStats } from './index.js';
import { defineResults } from './index.js';
import { settled } from '../../test/helpers/settled.js';

defineResults();

const root = (el: SvcResults): ShadowRoot => el.shadowRoot!;
const textOf = (node: Element | null | undefined): string => ((node as HTMLElement | null)?.innerText ?? '').replace(/\s+/g, ' ').trim();
const tables = (el: SvcResults, scope: ParentNode = root(el)) => [...scope.querySelectorAll<HTMLTableElement>('table[part="table"]')];
const rowOf = (table: HTMLTableElement, variation: string) =>
  [...table.tBodies[0]!.rows].find((r) => r.cells[0]!.textContent!.trim().startsWith(variation))!;
const cellOf = (table: HTMLTableElement, variation: string, header: string): HTMLTableCellElement => {
  const column = [...table.tHead!.rows[0]!.cells].findIndex((c) => c.textContent!.replace(/\s+/g, ' ').trim().startsWith(header));
  return rowOf(table, variation).cells[column] as HTMLTableCellElement;
};

/** A phase's moment as the reader's locale and time zone write it (the page is en-GB). */
const at = (iso: string): string => new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' }).format(Date.parse(iso));
const START = at('2026-11-02T09:00:00.000Z');
const CHANGE = at('2026-11-26T10:15:00.000Z');

const PHASES: ResultsPhase[] = [
  { phase: 1, startedAt: '2026-11-02T09:00:00.000Z', endedAt: '2026-11-26T10:15:00.000Z', weights: { control: 50, bold: 50 }, version: 3, reason: 'started' },
  { phase: 2, startedAt: '2026-11-26T10:15:00.000Z', weights: { control: 20, bold: 80 }, version: 4, reason: 'weights 50/50 → 20/80' },
];

/** A challenger's figures as the service computes them (relative and absolute, Bayesian, harm for a guardrail). */
function challenger(name: string, over: Partial<VariationStats> = {}): VariationStats {
  return {
    name, units: 800, total: 104, mean: 0.13, stddev: 0.336, uplift: 0.3, ci: [0.05, 0.55], pValue: 0.012, significant: true,
    chanceToWin: 0.994, risk: 0.0012, credibleInterval: [0.06, 0.54], absolute: { effect: 0.03, ci: [0.005, 0.055], pValue: 0.013, significant: true },
    ...over,
  };
}

function metric(name: string, over: Partial<MetricResult> = {}, challengers: VariationStats[] = [challenger('bold')]): MetricResult {
  return {
    name, type: 'binomial', inverse: false, cupedApplied: false,
    variations: [{ name: 'control', units: 200, total: 20, mean: 0.1, stddev: 0.3 }, ...challengers], ...over,
  };
}

/** An answer of phase `phase` of the two above, its weights those of the phase. */
function answer(over: Partial<ResultsAnswer> = {}, phase = 2): ResultsAnswer {
  const weights = PHASES[phase - 1]!.weights;
  return {
    experience: 'hero', control: 'control', phase, phases: PHASES, units: 1000, multipleExposures: 0,
    srm: { pValue: 0.41, mismatch: false }, analysis: { alpha: 0.05, interval: 'sequential', sequentialTuning: 5000, correction: 'none' },
    variations: [{ name: 'control', weight: weights.control!, units: 200 }, { name: 'bold', weight: weights.bold!, units: 800 }],
    metrics: [metric('purchase', { role: 'goal' })],
    ...over,
  };
}

/** Answers each request with `reply(url)`; the URLs asked are the stub's calls. */
function serve(reply: (url: URL) => ResultsAnswer | Response): sinon.SinonStub {
  return sinon.stub(window, 'fetch').callsFake(async (input: RequestInfo | URL) => {
    const body = reply(new URL(String(input)));
    return body instanceof Response ? body : new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  });
}

const asked = (stub: sinon.SinonStub): URL[] => stub.getCalls().map((c) => new URL(String(c.args[0])));

async function showing(template = html`<svc-results organization="acme" project="shop" experience="hero" lang="en-GB"></svc-results>`): Promise<SvcResults> {
  const el = await fixture<SvcResults>(template);
  el.apiKey = 'srv1.s3cret';
  await settled(el);
  return el;
}

/** The next `svc:results-view` of `el`. */
const nextView = (el: SvcResults): Promise<CustomEvent<ResultsView>> =>
  new Promise((resolve) => el.addEventListener('svc:results-view', resolve, { once: true }));

describe('<svc-results> views: phases, roles, guardrails, series, breakdowns, CSV', () => {
  afterEach(() => sinon.restore());

  it('names the phase shown in the header, lists the phases, and asks for phase=1 from the Phase select', async () => {
    const stub = serve((url) => (url.searchParams.get('phase') === '1' ? answer({}, 1) : answer()));
    const el = await showing();
    expect(asked(stub)[0]!.searchParams.has('phase')).to.equal(false);
    expect(textOf(root(el).querySelector('[part="phase"]'))).to.equal(`Phase 2 of 2, since ${CHANGE} · weights control 20% / bold 80%`);
    const items = [...root(el).querySelectorAll('[part="phases"] li')];
    expect(items.map(textOf)).to.deep.equal([
      `Phase 1: ${START} – ${CHANGE} · control 50% / bold 50% · started`,
      `Phase 2 (shown): since ${CHANGE} · control 20% / bold 80% · weights 50/50 → 20/80`,
    ]);
    expect(items[1]!.getAttribute('aria-current')).to.equal('true');

    const select = root(el).querySelector<HTMLSelectElement>('[part="phase-select"] select')!;
    expect(select.labels![0]!.textContent).to.equal('Phase');
    expect([...select.options].map((o) => o.textContent)).to.deep.equal(['All phases', 'Phase 1', 'Phase 2 (current)']);
    expect(select.value).to.equal('2');
    const view = nextView(el);
    select.focus();
    await sendKeys({ press: 'ArrowUp' });
    const event = await view;
    expect(event.detail).to.deep.equal({ phase: 1, dimension: '' });
    expect(event.bubbles && event.composed).to.equal(true);
    await el.updateComplete;
    await settled(el);
    expect(el.phase).to.equal('1');
    expect(asked(stub).at(-1)!.searchParams.get('phase')).to.equal('1');
    expect(textOf(root(el).querySelector('[part="phase"]'))).to.equal(`Phase 1 of 2, ${START} – ${CHANGE} · weights control 50% / bold 50%`);
    // The same select, still focused: the controls stay in place while the phase loads.
    expect(root(el).querySelector('[part="phase-select"] select')).to.equal(select);
    expect(root(el).activeElement).to.equal(select);
    expect(select.value).to.equal('1');
    expect(el.hasAttribute('phase')).to.equal(false);
  });

  it('says the phase of a single-phase experiment, and shows no phase list nor select', async () => {
    serve(() => answer({ phase: 1, phases: [{ ...PHASES[1]!, phase: 1, reason: 'started' }] }));
    const el = await showing();
    expect(textOf(root(el).querySelector('[part="phase"]'))).to.equal(`Phase 1 of 1, since ${CHANGE} · weights control 20% / bold 80%`);
    expect(root(el).querySelector('[part="phases"]')).to.equal(null);
    expect(root(el).querySelector('[part="phase-select"]')).to.equal(null);
  });

  it('keeps the phase select on an empty phase, so the reader can go back', async () => {
    serve((url) => (url.searchParams.get('phase') === '1' ? answer({}, 1) : answer({ units: 0, metrics: [] })));
    const el = await showing();
    expect(el.status).to.equal('empty');
    expect(textOf(root(el).querySelector('[part~="empty"]'))).to.include('No one has been exposed to hero in phase 2 yet');
    const select = root(el).querySelector<HTMLSelectElement>('[part="phase-select"] select')!;
    select.value = '1';
    select.dispatchEvent(new Event('change'));
    await el.updateComplete;
    await settled(el);
    expect(el.status).to.equal('ready');
  });

  it('labels each metric with its role, the first goal as the primary one', async () => {
    serve(() => answer({
      metrics: [
        metric('revenue', { role: 'goal', type: 'sum' }), metric('purchase', { role: 'goal' }), metric('signup', { role: 'secondary' }),
        metric('errors', { role: 'guardrail', inverse: true }), metric('orders', { type: 'count' }),
      ],
    }));
    const el = await showing();
    const roles = tables(el).map((t) => t.caption!.querySelector('[part="role"]')?.textContent ?? '');
    expect(roles).to.deep.equal(['Primary goal', 'Goal', 'Secondary', 'Guardrail', '']);
    expect(textOf(tables(el)[0]!.caption)).to.equal('revenue Primary goal · sum per unit');
  });

  it('marks a variation that harms a guardrail in its row and in a banner above the metrics, saying it stops the experiment', async () => {
    const harmed = challenger('bold', { uplift: 0.4, ci: [0.1, 0.7], harm: { pValue: 0.0021, harmed: true, pValueAdjusted: 0.0084, stops: true } });
    const calm = challenger('calm', { uplift: 0.01, ci: [-0.1, 0.12], significant: false, harm: { pValue: 0.41, harmed: false, pValueAdjusted: 0.82, stops: false } });
    serve(() => answer({
      analysis: { ...answer().analysis, harmTest: { test: 'sequential-one-sided', tuning: 5000, correction: 'holm-bonferroni', family: 4 } },
      variations: [{ name: 'control', weight: 20, units: 200 }, { name: 'bold', weight: 40, units: 400 }, { name: 'calm', weight: 40, units: 400 }],
      metrics: [
        metric('purchase', { role: 'goal' }, [challenger('bold'), challenger('calm')]),
        metric('errors', { role: 'guardrail', inverse: true }, [harmed, calm]),
        metric('latency', { role: 'guardrail', type: 'sum' }, [challenger('bold', { harm: { pValue: 0.00001, harmed: true, pValueAdjusted: 0.00004, stops: true } }), calm]),
      ],
    }));
    const el = await showing();
    const banner = root(el).querySelector('[part~="guardrail"]')!;
    expect(banner.getAttribute('role')).to.equal('alert');
    expect(textOf(banner)).to.equal('Guardrails are harmed. bold harms errors (p = 0.0021): stops the experiment bold harms latency (p < 0.0001): stops the experiment');
    const errors = tables(el)[1]!;
    expect(textOf(rowOf(errors, 'bold').querySelector('[part="harm"]'))).to.equal('harms this guardrail: stops the experiment (stop test p = 0.0021, adjusted 0.0084)');
    expect(textOf(rowOf(errors, 'calm').querySelector('[part="no-harm"]'))).to.equal('not enough harm to stop the experiment (stop test p = 0.4100, adjusted 0.8200)');
    expect(rowOf(errors, 'calm').querySelector('[part="harm"]')).to.equal(null);
    expect(rowOf(tables(el)[0]!, 'bold').querySelector('[part="harm"]')).to.equal(null);
    // It comes before the metrics.
    expect(banner.compareDocumentPosition(root(el).querySelector('section')!) & Node.DOCUMENT_POSITION_FOLLOWING).to.be.greaterThan(0);
  });

  it('says of a harm the stop\'s correction does not act on that it is a signal, not significant after correction', async () => {
    const signal = challenger('bold', { uplift: 0.2, ci: [0.01, 0.4], harm: { pValue: 0.021, harmed: true, pValueAdjusted: 0.084, stops: false } });
    const calm = challenger('calm', { harm: { pValue: 0.6, harmed: false, pValueAdjusted: 1, stops: false } });
    serve(() => answer({
      analysis: { ...answer().analysis, harmTest: { test: 'sequential-one-sided', tuning: 5000, correction: 'holm-bonferroni', family: 4 } },
      variations: [{ name: 'control', weight: 20, units: 200 }, { name: 'bold', weight: 40, units: 400 }, { name: 'calm', weight: 40, units: 400 }],
      metrics: [metric('errors', { role: 'guardrail', inverse: true }, [signal, calm]), metric('latency', { role: 'guardrail' }, [calm, calm])],
    }));
    const el = await showing();
    const banner = root(el).querySelector('[part~="guardrail"]')!;
    expect(banner.getAttribute('role')).to.equal('status', 'a signal is not an alert');
    expect(textOf(banner)).to.equal('A harm signal on a guardrail. bold on errors (p = 0.0210): harm signal, not significant after correction for 4 tests');
    const mark = rowOf(tables(el)[0]!, 'bold').querySelector('[part="harm"]')!;
    expect(textOf(mark)).to.equal('harm signal, not significant after correction for 4 tests (stop test p = 0.0210, adjusted 0.0840)');
    expect(mark.classList.contains('signal')).to.equal(true);
    expect(textOf(banner)).not.to.contain('stops the experiment');
    await expect(el).to.be.accessible();
  });

  it('writes "p < 0.0001" and "p = 0.0340" after p, never "p = < 0.0001"', async () => {
    serve(() => answer({ srm: { pValue: 0.00002, mismatch: true }, metrics: [metric('purchase', {}, [challenger('bold', { pValue: 0.00003 })])] }));
    const el = await showing();
    const banner = textOf(root(el).querySelector('[part="banner"]'));
    expect(banner).to.include('(p < 0.0001)');
    expect(root(el).innerHTML).not.to.include('= &lt;');
    expect(textOf(cellOf(tables(el)[0]!, 'bold', 'p-value'))).to.equal('< 0.0001');
    sinon.restore();
    serve(() => answer({ srm: { pValue: 0.034, mismatch: true } }));
    expect(textOf(root(await showing()).querySelector('[part="banner"]'))).to.include('(p = 0.0340)');
  });

  it('cuts a relative interval at −100% when both means are ≥ 0, with a note under the table, and leaves the answer as it is', async () => {
    const fall = metric('revenue', { type: 'sum' }, [challenger('bold', { mean: 0.9, uplift: -0.78, ci: [-1.62, 0.06], significant: false })]);
    fall.variations[0] = { name: 'control', units: 200, total: 820, mean: 4.1, stddev: 9.5 };
    const negative = metric('margin', { type: 'sum', variations: [
      { name: 'control', units: 200, total: -40, mean: -0.2, stddev: 3 },
      challenger('bold', { mean: -0.5, uplift: -1.5, ci: [-2.4, -0.6] }),
    ] });
    serve(() => answer({ metrics: [fall, negative] }));
    const el = await showing();
    const [revenue, margin] = tables(el);
    expect(textOf(cellOf(revenue!, 'bold', 'Uplift'))).to.equal('-78.0% -100.0% to +6.0%');
    const notes = [...root(el).querySelectorAll('[part="cut"]')];
    expect(notes).to.have.length(1);
    expect(notes[0]!.textContent).to.equal('Intervals are cut at −100 %: a mean that cannot be negative cannot fall by more than all of it.');
    expect(notes[0]!.closest('[part="metric"]')!.contains(revenue!)).to.equal(true);
    expect(root(el).querySelector('[part="chart"] g[data-variation="bold"] text')!.textContent).to.equal('bold: -78.0% (-100.0% to +6.0%)');
    // A mean that can be negative may fall by more than all of it: its interval stands.
    expect(textOf(cellOf(margin!, 'bold', 'Uplift'))).to.equal('-150.0% -240.0% to -60.0%');
    expect(el.results!.metrics[0]!.variations[1]!.ci).to.deep.equal([-1.62, 0.06]);
    expect(el.toCsv()).to.include(',-0.78,-1.62,0.06,');
    el.difference = 'absolute';
    await el.updateComplete;
    expect(root(el).querySelector('[part="cut"]')).to.equal(null);
  });

  describe('the date graph (series="day")', () => {
    const day = (date: string, units: number, bold: Partial<VariationStats>, calm: Partial<VariationStats>): SeriesPoint => ({
      date, units, variations: [{ name: 'control', weight: 20, units: units / 5 }, { name: 'bold', weight: 40, units: units * 0.4 }, { name: 'calm', weight: 40, units: units * 0.4 }],
      metrics: [metric('purchase', { role: 'goal' }, [challenger('bold', bold), challenger('calm', calm)])],
    });
    const series = [
      day('2026-11-26', 100, { uplift: 0.5, ci: [-1.4, 2.4] }, { uplift: null, ci: null, pValue: null }),
      day('2026-11-27', 400, { uplift: 0.35, ci: [-0.2, 0.9] }, { uplift: -0.05, ci: [-0.6, 0.5] }),
      day('2026-11-28', 1000, { uplift: 0.3, ci: [0.05, 0.55] }, { uplift: -0.02, ci: [-0.3, 0.26] }),
    ];
    const withSeries = (over: Partial<ResultsAnswer> = {}) => answer({
      variations: [{ name: 'control', weight: 20, units: 200 }, { name: 'bold', weight: 40, units: 400 }, { name: 'calm', weight: 40, units: 400 }],
      metrics: [metric('purchase', { role: 'goal' }, [challenger('bold'), challenger('calm', { uplift: -0.02, ci: [-0.3, 0.26] })])],
      series, ...over,
    });

    it('asks for series=day and draws a line per challenger with its band, dates on the axis, a legend and a hidden table of the days', async () => {
      const stub = serve(() => withSeries());
      const el = await showing(html`<svc-results organization="acme" project="shop" experience="hero" series="day" lang="en-GB"></svc-results>`);
      expect(asked(stub)[0]!.searchParams.get('series')).to.equal('day');
      const figure = root(el).querySelector('[part="series"]')!;
      expect(figure.tagName).to.equal('FIGURE');
      expect(textOf(figure.querySelector('figcaption'))).to.equal('Cumulative uplift against control by day (UTC), with 95% sequential confidence intervals');
      const lines = [...figure.querySelectorAll('path.line')];
      expect(lines.map((p) => p.getAttribute('data-variation'))).to.deep.equal(['bold', 'calm']);
      expect(lines[0]!.getAttribute('d')!.match(/[ML]/g)).to.deep.equal(['M', 'L', 'L']);
      // calm has no uplift on the first day: its line starts on the second.
      expect(lines[1]!.getAttribute('d')!.match(/[ML]/g)).to.deep.equal(['M', 'L']);
      expect(figure.querySelectorAll('path.band')).to.have.length(2);
      expect(figure.querySelectorAll('line[data-zero]')).to.have.length(1);
      const svg = figure.querySelector('svg')!;
      expect(svg.getAttribute('role')).to.equal('img');
      expect(svg.getAttribute('aria-label')).to.equal('Cumulative uplift of purchase against control by day, from 26 Nov 2026 to 28 Nov 2026 (3 days). '
        + 'On 28 Nov 2026: bold +30.0% (95% interval +5.0% to +55.0%); calm -2.0% (95% interval -30.0% to +26.0%).');
      expect([...svg.querySelectorAll(':scope > text.tick')].map((t) => t.textContent).slice(-3)).to.deep.equal(['26 Nov', '27 Nov', '28 Nov']);
      expect(textOf(figure.querySelector('.legend'))).to.equal('bold calm 95% interval');
      const hidden = figure.querySelector<HTMLTableElement>('table.points')!;
      expect(hidden.tBodies[0]!.rows).to.have.length(3);
      expect([...hidden.tBodies[0]!.rows[0]!.cells].map((c) => c.textContent!.trim())).to.deep.equal(['26 Nov 2026', '100', '+50.0% (-100.0% to +240.0%)', 'not enough data']);
      // The first day's interval is cut at −100%, as in the table: the graph says so.
      expect(textOf(figure.querySelector('.note'))).to.include('Intervals are cut at −100 %');
      // Only the overall section has a series.
      expect(root(el).querySelectorAll('[part="series"]')).to.have.length(1);
    });

    it('follows the relative/absolute switch', async () => {
      serve(() => withSeries());
      const el = await showing(html`<svc-results organization="acme" project="shop" experience="hero" series="day" difference="absolute" lang="en-GB"></svc-results>`);
      const figure = root(el).querySelector('[part="series"]')!;
      expect(textOf(figure.querySelector('figcaption'))).to.include('Cumulative difference in percentage points against control');
      expect(figure.querySelector('svg')!.getAttribute('aria-label')).to.include('bold +3.00 pp (95% interval +0.50 pp to +5.50 pp)');
    });

    it('draws a single day, and fits 390 px', async () => {
      serve(() => withSeries({ series: series.slice(2) }));
      const wrapper = await fixture<HTMLDivElement>(html`<div style="width: 390px"><svc-results organization="acme" project="shop" experience="hero" series="day" lang="en-GB"></svc-results></div>`);
      const el = wrapper.querySelector('svc-results')!;
      el.apiKey = 'srv1.s3cret';
      await settled(el);
      const figure = root(el).querySelector('[part="series"]')!;
      expect(figure.querySelectorAll('.marker')).to.have.length(2);
      expect(figure.querySelector<HTMLTableElement>('table.points')!.tBodies[0]!.rows).to.have.length(1);
      const svg = figure.querySelector('svg')!.getBoundingClientRect();
      expect(svg.width).to.be.at.most(390);
      const plot = figure.querySelector('svg svg')!.getBoundingClientRect();
      expect(plot.left).to.be.greaterThan(svg.left + 40); // room for the value labels
      expect(plot.right).to.be.at.most(svg.right);
      expect(wrapper.scrollWidth).to.equal(390);
      for (const text of figure.querySelectorAll('svg text')) expect(text.getBoundingClientRect().height, text.textContent!).to.be.within(8, 20);
    });

    it('has no graph without series="day" or without points', async () => {
      serve(() => withSeries({ series: [] }));
      const el = await showing();
      expect(root(el).querySelector('[part="series"]')).to.equal(null);
    });
  });

  describe('Break down by', () => {
    it('offers the dimensions, asks for dimension=browser, and heads the sections with the dimension in words', async () => {
      const section = (name: string, value: string) => ({
        name, value, units: 500, variations: [{ name: 'control', weight: 20, units: 100 }, { name: 'bold', weight: 80, units: 400 }], metrics: [metric('purchase')],
      });
      const stub = serve((url) => {
        const d = url.searchParams.get('dimension');
        return answer(d ? { dimensions: [section(d, d === 'visitor' ? 'new' : 'Chrome'), section(d, 'unknown')] } : {});
      });
      const el = await showing();
      const select = root(el).querySelector<HTMLSelectElement>('[part="breakdown"] select')!;
      expect(select.labels![0]!.textContent).to.equal('Break down by');
      expect([...select.options].map((o) => [o.value, o.textContent])).to.deep.equal([
        ['', 'None'], ['device', 'Device'], ['browser', 'Browser'], ['visitor', 'New or returning'], ['utm_source', 'utm_source'], ['utm_medium', 'utm_medium'],
      ]);
      const view = nextView(el);
      select.value = 'browser';
      select.dispatchEvent(new Event('change'));
      expect((await view).detail).to.deep.equal({ phase: 2, dimension: 'browser' });
      await el.updateComplete;
      await settled(el);
      expect(asked(stub).at(-1)!.searchParams.get('dimension')).to.equal('browser');
      expect(el.dimension).to.equal('browser');
      expect([...root(el).querySelectorAll('section h3')].map((h) => textOf(h).split(' (')[0])).to.deep.equal(['All units', 'Browser: Chrome', 'Browser: unknown']);
      expect(textOf(tables(el)[1]!.caption)).to.include('Browser: Chrome');
      el.dimension = 'visitor';
      await el.updateComplete;
      await settled(el);
      expect(textOf(root(el).querySelectorAll('section h3')[1]!).split(' (')[0]).to.equal('New or returning: new');
    });

    it('keeps a profile attribute the host set as an extra option, selected', async () => {
      const stub = serve(() => answer({ dimensions: [{ name: 'attribute:plan', value: 'pro', units: 1000, variations: answer().variations, metrics: [metric('purchase')] }] }));
      const el = await showing(html`<svc-results organization="acme" project="shop" experience="hero" dimension="attribute:plan" lang="en-GB"></svc-results>`);
      expect(asked(stub)[0]!.searchParams.get('dimension')).to.equal('attribute:plan');
      const select = root(el).querySelector<HTMLSelectElement>('[part="breakdown"] select')!;
      expect(select.options[select.selectedIndex]!.textContent).to.equal('Profile attribute plan');
      expect(select.value).to.equal('attribute:plan');
      expect(textOf(root(el).querySelectorAll('section h3')[1]!).split(' (')[0]).to.equal('Profile attribute plan: pro');
    });

    it('keeps the controls when a breakdown fails, so the reader can go back', async () => {
      serve((url) => (url.searchParams.get('dimension') === 'utm_medium'
        ? new Response(JSON.stringify({ error: { code: 'invalid_request', message: 'dimension: must be "device"' } }), { status: 400 })
        : answer()));
      const el = await showing();
      const select = root(el).querySelector<HTMLSelectElement>('[part="breakdown"] select')!;
      select.value = 'utm_medium';
      select.dispatchEvent(new Event('change'));
      await el.updateComplete;
      await settled(el);
      expect(el.status).to.equal('error');
      expect(textOf(root(el).querySelector('[part~="error"]'))).to.include('dimension: must be "device"');
      expect(root(el).querySelector('[part="breakdown"] select')).to.equal(select);
      select.value = '';
      select.dispatchEvent(new Event('change'));
      await el.updateComplete;
      await settled(el);
      expect(el.status).to.equal('ready');
    });
  });

  describe('CSV', () => {
    const small = (): ResultsAnswer => answer({
      metrics: [metric('purchase', { role: 'goal' }, [challenger('bold', {
        total: 3, mean: 0.3, stddev: 0.4582575694955841, uplift: 2, ci: [-0.5, 4.5], pValue: 1e-7, pValueAdjusted: 0.000003, significant: true,
        chanceToWin: 0.99, risk: null,
      })])].map((m) => ({ ...m, variations: [{ name: 'control', units: 10, total: 1, mean: 0.1, stddev: 0.3 }, m.variations[1]!] })),
      dimensions: [
        { name: 'utm_source', value: '=HYPERLINK("http://x.example","y")', units: 4, variations: [], metrics: [metric('purchase', {}, [])] },
        { name: 'utm_source', value: 'news, "daily"', units: 3, variations: [], metrics: [metric('purchase', {}, [])] },
        // A visitor's address in a locale whose spreadsheets split on `;`: the piece after it would be a formula.
        { name: 'utm_source', value: "x;=cmd|' /C calc'!A0", units: 3, variations: [], metrics: [metric('purchase', {}, [])] },
        { name: 'utm_source', value: '-5', units: 3, variations: [], metrics: [{ ...metric('@sum', { type: 'sum' }, []), variations: [
          { name: '+cmd', units: 3, total: 0, mean: null, stddev: null }, { name: '+1', units: 3, total: 0, mean: null, stddev: null },
        ] }] },
      ],
      series: [{ date: '2026-11-27', units: 10, variations: [], metrics: [metric('purchase', { role: 'goal' }, [])] }],
    });

    it('gives the view as CSV: exact numbers, quoted cells, spreadsheet formulas guarded whichever separator splits them', async () => {
      serve(small);
      const el = await showing();
      expect(el.toCsv()).to.equal([
        'section,dimension,value,date,metric,role,variation,units,total,mean,stddev,uplift,ci_low,ci_high,p_value,p_value_adjusted,chance_to_win,risk,significant',
        'all,,,,purchase,goal,control,10,1,0.1,0.3,,,,,,,,',
        'all,,,,purchase,goal,bold,800,3,0.3,0.4582575694955841,2,-0.5,4.5,1e-7,0.000003,0.99,,true',
        'dimension,utm_source,"\'=HYPERLINK(""http://x.example"",""y"")",,purchase,,control,200,20,0.1,0.3,,,,,,,,',
        'dimension,utm_source,"news, ""daily""",,purchase,,control,200,20,0.1,0.3,,,,,,,,',
        'dimension,utm_source,"x;\'=cmd|\' /C calc\'!A0",,purchase,,control,200,20,0.1,0.3,,,,,,,,',
        'dimension,utm_source,-5,,\'@sum,,\'+cmd,3,0,,,,,,,,,,',
        'dimension,utm_source,-5,,\'@sum,,+1,3,0,,,,,,,,,,',
        'series,,,2026-11-27,purchase,goal,control,200,20,0.1,0.3,,,,,,,,',
        '',
      ].join('\r\n'));
    });

    it('downloads it as <experience>-phase<N>.csv from the Download CSV button', async () => {
      serve(small);
      const el = await showing();
      const blobs: Blob[] = [];
      sinon.stub(URL, 'createObjectURL').callsFake((blob: Blob | MediaSource) => {
        blobs.push(blob as Blob);
        return 'blob:results';
      });
      sinon.stub(URL, 'revokeObjectURL');
      const clicked: HTMLAnchorElement[] = [];
      sinon.stub(HTMLAnchorElement.prototype, 'click').callsFake(function (this: HTMLAnchorElement) {
        clicked.push(this);
      });
      const button = root(el).querySelector<HTMLButtonElement>('button[part="csv"]')!;
      expect(button.textContent!.trim()).to.equal('Download CSV');
      expect(button.type).to.equal('button');
      button.click();
      expect(clicked).to.have.length(1);
      expect(clicked[0]!.download).to.equal('hero-phase2.csv');
      expect(clicked[0]!.getAttribute('href')).to.equal('blob:results');
      expect(clicked[0]!.isConnected).to.equal(false);
      expect(blobs[0]!.type).to.equal('text/csv;charset=utf-8');
      const bytes = new Uint8Array(await blobs[0]!.arrayBuffer());
      expect([...bytes.slice(0, 3)]).to.deep.equal([0xef, 0xbb, 0xbf]);
      expect(new TextDecoder().decode(bytes)).to.equal(el.toCsv());
    });
  });

  it('is accessible with all of it: phases, roles, a harmed guardrail, a cut interval, a mismatch, a breakdown and a date graph', async () => {
    const harmed = challenger('bold', { harm: { pValue: 0.003, harmed: true }, uplift: 0.6, ci: [0.2, 1.0] });
    const cut = challenger('bold', { mean: 0.02, uplift: -0.8, ci: [-1.7, 0.1], significant: false });
    const point = (date: string): SeriesPoint => ({ date, units: 500, variations: answer().variations, metrics: [metric('purchase', { role: 'goal' }, [cut])] });
    serve(() => answer({
      srm: { pValue: 0.00001, mismatch: true },
      metrics: [metric('purchase', { role: 'goal' }, [cut]), metric('signup', { role: 'secondary' }), metric('errors', { role: 'guardrail', inverse: true }, [harmed])],
      dimensions: [{ name: 'device', value: 'mobile', units: 400, variations: answer().variations, metrics: [metric('purchase', { role: 'goal' })] }],
      series: [point('2026-11-26'), point('2026-11-27')],
    }));
    const el = await showing(html`<svc-results organization="acme" project="shop" experience="hero" series="day" dimension="device" lang="en-GB"></svc-results>`);
    for (const part of ['phase', 'phases', 'phase-select', 'breakdown', 'csv', 'guardrail', 'role', 'harm', 'cut', 'series', 'banner']) {
      expect(root(el).querySelector(`[part~="${part}"]`), part).not.to.equal(null);
    }
    await expect(el).to.be.accessible();
  });
});
