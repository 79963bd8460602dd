// `<svc-experience>`'s properties as Lit gave them, kept without Lit: a value the page set before the element was
// defined, and a `name` that changes (by attribute or property), which asks again.
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import type { ChooseParams, TrackParams } from '../../src/index.js';
import { cleanup } from '../../test/helpers/svc.js';
import { experiences, SvcExperience, type Chooser } from './index.js';

experiences(); // defines <svc-experience>

/** An SDK instance of its own for the element: it answers variation `x` for every name and records what it is asked. */
function chooser(): Chooser & { asked: string[][]; shown: TrackParams[] } {
  const asked: string[][] = [];
  const shown: TrackParams[] = [];
  return {
    asked,
    shown,
    choose: async ({ names = [] }: ChooseParams) => {
      asked.push(names);
      return names.map((name) => ({ name, group: 'g', variation: 'x', body: {} }));
    },
    track: (params) => void shown.push(params),
  };
}

/** A tag of its own per test (a subclass: the same element), defined only when the test says so. */
let defined = 0;
function defineLater(): { tag: string; define: () => void } {
  const tag = `svc-experience-late-${++defined}`;
  return { tag, define: () => customElements.define(tag, class extends SvcExperience {}) };
}

describe('<svc-experience> properties', () => {
  afterEach(() => cleanup());

  it('takes name, timeout, status and svc set before the element was defined', async () => {
    const { tag, define } = defineLater();
    const el = document.createElement(tag) as SvcExperience;
    el.innerHTML = '<p>Fallback</p><template variation="x"><p>X</p></template>';
    const svc = chooser();
    Object.assign(el, { svc, name: 'early', timeout: 5000, status: 'empty' });
    document.body.append(el);
    const settled = oneEvent(el, 'svc:experience');
    define();
    const { detail } = await settled;
    expect(detail).to.include({ name: 'early', status: 'ready', variation: 'x' });
    expect(svc.asked).to.deep.equal([['early']]);
    expect(el.getAttribute('name'), 'reflected').to.equal('early');
    expect(el.getAttribute('status'), 'the accessor, not the page\'s own property').to.equal('ready');
    expect(el.timeout).to.equal(5000);
    el.remove();
  });

  it('asks again when name changes, by attribute or property, and not when it is set to the same value', async () => {
    const svc = chooser();
    const el = await fixture<SvcExperience>(html`<svc-experience .svc=${svc}><template variation="x">X</template></svc-experience>`);
    expect(el.getAttribute('status'), 'no name: nothing asked').to.equal('loading');
    el.setAttribute('name', 'a');
    expect((await oneEvent(el, 'svc:experience')).detail.name).to.equal('a');
    el.name = 'b';
    expect((await oneEvent(el, 'svc:experience')).detail.name).to.equal('b');
    el.setAttribute('name', 'b');
    el.timeout = 300;
    await el.updateComplete;
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(svc.asked).to.deep.equal([['a'], ['b']]);
    expect(el.getAttribute('timeout'), 'timeout is not reflected').to.equal(null);
  });

  it('reads timeout from its attribute', async () => {
    const el = await fixture<SvcExperience>(html`<svc-experience timeout="300"></svc-experience>`);
    expect(el.timeout).to.equal(300);
    el.setAttribute('timeout', '50');
    expect(el.timeout).to.equal(50);
  });
});
