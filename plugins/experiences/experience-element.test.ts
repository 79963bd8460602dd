import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import sinon from 'sinon';
import { captureEvents, cleanup, makeSvc, stubFetch } from '../../test/helpers/svc.js';
import { experiences, type ExperienceEventDetail, type SvcExperience } from './index.js';
import { consentBanner, type SvcConsent } from '../consent-banner/index.js';

const choice = (name: string, variation: string | undefined, body: Record<string, unknown>) =>
  variation === undefined ? { name, body } : { name, group: 'homepage', variation, body };

async function mount(markup: ReturnType<typeof html>): Promise<{ el: SvcExperience; detail: ExperienceEventDetail }> {
  const el = await fixture<SvcExperience>(markup);
  const { detail } = await oneEvent(el, 'svc:experience');
  await el.updateComplete;
  return { el, detail };
}

function visibleText(el: HTMLElement): string {
  const slot = el.shadowRoot!.querySelector('slot')!;
  return slot.assignedNodes({ flatten: true }).map((n) => n.textContent ?? '').join('').replace(/\s+/g, ' ').trim();
}

describe('<svc-experience>', () => {
  let remove: () => void;
  afterEach(() => {
    remove?.();
    cleanup();
  });

  it('shows the fallback while loading, then the template of the assigned variation', async () => {
    let answer!: (r: Response) => void;
    let requested!: () => void;
    const asked = new Promise<void>((resolve) => (requested = resolve));
    sinon.stub(window, 'fetch').callsFake(() => new Promise<Response>((resolve) => {
      answer = resolve;
      requested();
    }));
    remove = makeSvc().use(experiences());
    const el = await fixture<SvcExperience>(html`
      <svc-experience name="hero-banner">
        <h1>Welcome</h1>
        <template variation="bold"><h1>Big sale</h1></template>
        <template variation="control"><h1>Hello</h1></template>
      </svc-experience>`);
    expect(el.getAttribute('status')).to.equal('loading');
    expect(el.getAttribute('aria-busy')).to.equal('true');
    expect(visibleText(el)).to.equal('Welcome');
    const event = oneEvent(el, 'svc:experience');
    await asked;
    answer(new Response(JSON.stringify({ choices: [choice('hero-banner', 'bold', { title: 'Big sale' })] }), { status: 200 }));
    const { detail } = await event;
    await el.updateComplete;
    expect(el.getAttribute('status')).to.equal('ready');
    expect(el.hasAttribute('aria-busy')).to.equal(false);
    expect(visibleText(el)).to.equal('Big sale');
    expect(detail).to.deep.equal({ name: 'hero-banner', status: 'ready', group: 'homepage', variation: 'bold', body: { title: 'Big sale' } });
  });

  describe('a returning visitor whose variation the loader showed in the first paint', () => {
    /** The element as the snippet's loader leaves it before the SDK arrives: the known variation stamped in. */
    const stamped = (variation: string) => html`
      <svc-experience name="hero-banner" data-svc-known>
        <h1>Welcome</h1>
        <template variation="bold"><h1>Big sale</h1></template>
        <template variation="control"><h1>Hello</h1></template>
        <div slot="content" style="display:contents" data-svc-variation=${variation}><h1>${variation === 'bold' ? 'Big sale' : 'Hello'}</h1></div>
      </svc-experience>`;

    it('keeps showing it while asking, keeps the same node when the service confirms it, and reports the exposure', async () => {
      const fetchStub = stubFetch(200, { choices: [choice('hero-banner', 'bold', { title: 'Big sale' })] });
      const events = captureEvents();
      remove = makeSvc().use(experiences());
      const el = await fixture<SvcExperience>(stamped('bold'));
      const node = el.querySelector('[slot="content"]');
      expect(visibleText(el), 'never the fallback, also while loading').to.equal('Big sale');
      const { detail } = await oneEvent(el, 'svc:experience');
      await el.updateComplete;
      expect(detail).to.include({ status: 'ready', variation: 'bold' });
      expect(el.querySelector('[slot="content"]'), 'the same node: nothing repainted').to.equal(node);
      expect(visibleText(el)).to.equal('Big sale');
      expect(events.events.filter((e) => e.name === 'Experiment Viewed').map((e) => e.data)).to.deep.equal([
        { experience: 'hero-banner', device: 'desktop', variation: 'bold' },
      ]);
      const body = JSON.parse(String((fetchStub.getCalls().find((c) => String(c.args[0]).includes('choose-api'))!.args[1] as RequestInit).body));
      expect(body.deferExposure, 'the answer records no exposure').to.equal(true);
      events.stop();
    });

    it('corrects a stale one to the variation the service answers', async () => {
      stubFetch(200, { choices: [choice('hero-banner', 'control', { title: 'Hello' })] });
      remove = makeSvc().use(experiences());
      const el = await fixture<SvcExperience>(stamped('bold'));
      const { detail } = await oneEvent(el, 'svc:experience');
      await el.updateComplete;
      expect(detail.variation).to.equal('control');
      expect(visibleText(el)).to.equal('Hello');
      expect(el.querySelectorAll('[slot="content"]')).to.have.length(1);
      expect(JSON.parse(localStorage.getItem('svc.choices')!)['hero-banner']).to.equal('control');
    });

    it('goes back to the fallback, and forgets it, when the visitor is no longer enrolled', async () => {
      localStorage.setItem('svc.choices', JSON.stringify({ 'hero-banner': 'bold', other: 'x' }));
      stubFetch(200, { choices: [] });
      remove = makeSvc().use(experiences());
      const el = await fixture<SvcExperience>(stamped('bold'));
      const { detail } = await oneEvent(el, 'svc:experience');
      await el.updateComplete;
      expect(detail).to.include({ status: 'empty', reason: 'no-choice' });
      expect(visibleText(el)).to.equal('Welcome');
      const known = JSON.parse(localStorage.getItem('svc.choices')!) as Record<string, string>;
      expect(known).to.not.have.property('hero-banner');
      expect(known.other, 'the others stay').to.equal('x');
    });
  });

  it('remembers the variation it showed, for the next first paint; logging out or opting out forgets', async () => {
    stubFetch(200, { choices: [choice('hero-banner', 'bold', { title: 'Big sale' })] });
    const svc = makeSvc();
    remove = svc.use(experiences());
    await mount(html`<svc-experience name="hero-banner"><h1>Welcome</h1><template variation="bold"><h1>Big sale</h1></template></svc-experience>`);
    expect(JSON.parse(localStorage.getItem('svc.choices')!)['hero-banner']).to.equal('bold');
    svc.logOut();
    expect(localStorage.getItem('svc.choices'), 'a new person').to.equal(null);
    localStorage.setItem('svc.choices', JSON.stringify({ 'hero-banner': 'bold' }));
    svc.optOut();
    expect(localStorage.getItem('svc.choices'), 'opted out').to.equal(null);
  });

  it('fills a plain template from the body as text, never as HTML', async () => {
    stubFetch(200, { choices: [choice('welcome-note', undefined, { text: '<img src=x onerror="window.pwned=1">Hi', who: { name: 'Ada' } })] });
    remove = makeSvc().use(experiences());
    const { el } = await mount(html`
      <svc-experience name="welcome-note"><p>Hello</p>
        <template><p class="note"><span data-field="text"></span> <b data-field="who.name"></b></p></template>
      </svc-experience>`);
    expect(el.status).to.equal('ready');
    const note = el.querySelector('.note')!;
    expect(note.querySelector('img')).to.equal(null);
    expect(note.querySelector('span')!.textContent).to.equal('<img src=x onerror="window.pwned=1">Hi');
    expect(note.querySelector('b')!.textContent).to.equal('Ada');
    expect((window as { pwned?: number }).pwned).to.equal(undefined);
  });

  it('keeps the fallback when the visitor gets no choice (status empty)', async () => {
    stubFetch(200, { choices: [] });
    remove = makeSvc().use(experiences());
    const { el, detail } = await mount(html`<svc-experience name="hero-banner"><h1>Welcome</h1><template variation="bold">B</template></svc-experience>`);
    expect(el.status).to.equal('empty');
    expect(detail).to.include({ status: 'empty', reason: 'no-choice' });
    expect(visibleText(el)).to.equal('Welcome');
  });

  it('keeps the fallback when the service fails', async () => {
    stubFetch(500, { error: { code: 'internal', message: 'x' } });
    remove = makeSvc().use(experiences());
    const { el } = await mount(html`<svc-experience name="hero-banner"><h1>Welcome</h1><template variation="bold">B</template></svc-experience>`);
    expect(el.status).to.equal('empty');
    expect(visibleText(el)).to.equal('Welcome');
  });

  it('after the anti-flicker timeout the fallback stays, even if the answer comes later', async () => {
    const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let answer!: (r: Response) => void;
    sinon.stub(window, 'fetch').callsFake(() => new Promise<Response>((resolve) => (answer = resolve)));
    remove = makeSvc().use(experiences());
    const el = await fixture<SvcExperience>(html`<svc-experience name="hero-banner" timeout="300"><h1>Welcome</h1><template variation="bold">Big sale</template></svc-experience>`);
    const event = oneEvent(el, 'svc:experience');
    await clock.tickAsync(299);
    expect(el.status).to.equal('loading');
    await clock.tickAsync(1);
    const { detail } = await event;
    expect(detail).to.include({ status: 'empty', reason: 'timeout' });
    answer(new Response(JSON.stringify({ choices: [choice('hero-banner', 'bold', {})] }), { status: 200 }));
    await clock.tickAsync(1000);
    await el.updateComplete;
    expect(el.status).to.equal('empty');
    expect(visibleText(el)).to.equal('Welcome');
    clock.restore();
  });

  it('several elements on a page cost one request', async () => {
    const fetchStub = stubFetch(200, { choices: [choice('a', 'x', {}), choice('b', 'y', {})] });
    remove = makeSvc().use(experiences());
    const wrapper = await fixture(html`<div>
      <svc-experience name="a"><template variation="x">A</template></svc-experience>
      <svc-experience name="b"><template variation="y">B</template></svc-experience></div>`);
    const els = [...wrapper.querySelectorAll('svc-experience')];
    await Promise.all(els.map((el) => (el.status === 'loading' ? oneEvent(el, 'svc:experience') : undefined)));
    // One Choose request; the exposures the elements report as shown travel through the outbox, whenever it sends.
    const chooseCalls = fetchStub.getCalls().filter((c) => String(c.args[0]).endsWith('/choose-api'));
    expect(chooseCalls).to.have.length(1);
    expect(JSON.parse(String((chooseCalls[0]!.args[1] as RequestInit).body)).names).to.deep.equal(['a', 'b']);
    expect(els.map((el) => el.status)).to.deep.equal(['ready', 'ready']);
  });

  /** A page under a consent policy that requires consent: a banner and an experience, settled before any decision. */
  async function consentPage() {
    const fetchStub = stubFetch(200, { choices: [choice('hero-banner', 'bold', {})] });
    const svc = makeSvc({ consent: { required: true } });
    const removeExperiences = svc.use(experiences());
    const removeBanner = svc.use(consentBanner());
    remove = () => {
      removeExperiences();
      removeBanner();
    };
    const page = await fixture(html`<div><svc-consent></svc-consent>
      <svc-experience name="hero-banner"><h2>Welcome</h2><template variation="bold"><h2>Big sale</h2></template></svc-experience></div>`);
    const el = page.querySelector('svc-experience')!;
    const banner = page.querySelector<SvcConsent>('svc-consent')!;
    if (el.status === 'loading') await oneEvent(el, 'svc:experience');
    await banner.updateComplete;
    const chooseCalls = () => fetchStub.getCalls().filter((c) => String(c.args[0]).endsWith('/choose-api'));
    const click = (part: string) => banner.shadowRoot!.querySelector<HTMLButtonElement>(`button[part~="${part}"]`)!.click();
    return { el, chooseCalls, click };
  }

  it('waiting for consent it keeps the fallback without asking; once the visitor accepts it asks and shows the variation', async () => {
    const { el, chooseCalls, click } = await consentPage();
    expect(el.status).to.equal('empty');
    expect(chooseCalls(), 'no Choose request before consent').to.have.length(0);
    const settled = oneEvent(el, 'svc:experience');
    click('accept');
    const { detail } = await settled;
    await el.updateComplete;
    expect(detail).to.include({ status: 'ready', variation: 'bold' });
    expect(visibleText(el)).to.equal('Big sale');
    expect(chooseCalls()).to.have.length(1);
  });

  it('a rejection leaves the fallback and asks nothing', async () => {
    const { el, chooseCalls, click } = await consentPage();
    click('reject');
    await el.updateComplete;
    expect(el.status).to.equal('empty');
    expect(visibleText(el)).to.equal('Welcome');
    expect(chooseCalls()).to.have.length(0);
  });

  it('is accessible in every state', async () => {
    stubFetch(200, { choices: [choice('hero-banner', 'bold', {})] });
    remove = makeSvc().use(experiences());
    const el = await fixture<SvcExperience>(html`<svc-experience name="hero-banner"><h2>Welcome</h2><template variation="bold"><h2>Big sale</h2></template></svc-experience>`);
    const settled = oneEvent(el, 'svc:experience');
    await expect(el).to.be.accessible();
    await settled;
    await el.updateComplete;
    await expect(el).to.be.accessible();
  });
});
