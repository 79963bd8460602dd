import { expect, fixture, html } from '@open-wc/testing';
import { FORBIDDEN_TITLES, type ServiceEvent } from '../../src/index.js';
import { captureEvents, cleanup, makeSvc, stubFetch } from '../../test/helpers/svc.js';
import { autoTrack } from './index.js';

const named = (events: ServiceEvent[], name: string): ServiceEvent[] => events.filter((e) => e.name === name);

/** Sets a field as typing would and fires its change event. */
function type(el: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  el.value = value;
  el.dispatchEvent(new Event('change', { bubbles: true }));
}

/** A real submission (validation, submitter, submit event) that does not navigate the test page away. */
function submit(form: HTMLFormElement, submitter?: HTMLElement): void {
  form.addEventListener('submit', (e) => e.preventDefault(), { once: true });
  form.requestSubmit(submitter ?? null);
}

describe('auto-track: clicks, changes and submits', () => {
  let capture: ReturnType<typeof captureEvents>;

  beforeEach(() => {
    stubFetch();
    capture = captureEvents();
    makeSvc().use(autoTrack());
  });
  afterEach(async () => {
    capture.stop();
    await cleanup();
  });

  it('Click On names the nearest link with tag, id, classes, selector, bounded text and href', async () => {
    const nav = await fixture(html`<nav class="main top"><a id="buy" class="btn primary" href="/p/1"><span>  Buy
      now </span></a></nav>`);
    nav.addEventListener('click', (e) => e.preventDefault()); // stay on the test page
    nav.querySelector('span')!.click();
    expect(named(capture.events, 'Click On')[0]).to.include({ type: 'track' });
    expect(named(capture.events, 'Click On')[0]!.data).to.deep.equal({
      tag: 'a', id: 'buy', classes: ['btn', 'primary'], selector: 'a#buy', text: 'Buy now', href: `${location.origin}/p/1`,
    });
  });

  it('Click On bounds a button text to 200 characters and builds a short selector without ids', async () => {
    const el = await fixture(html`<div class="card"><button class="add">${'x'.repeat(500)}</button></div>`);
    el.querySelector('button')!.click();
    const [click] = named(capture.events, 'Click On');
    expect((click!.data!.text as string).length).to.equal(200);
    expect(click!.data!.selector, 'three levels up').to.equal('div > div.card > button.add');
  });

  it('Click On cuts a text at 200 characters without splitting an emoji into a lone surrogate', async () => {
    const el = await fixture<HTMLButtonElement>(html`<button>${'x'.repeat(199)}😀 and more</button>`);
    el.click();
    const text = named(capture.events, 'Click On')[0]!.data!.text as string;
    expect(text).to.equal('x'.repeat(199));
  });

  it('Submit On leaves out a captured field named __proto__ (the service refuses the key) and sets no prototype', async () => {
    const form = await fixture<HTMLFormElement>(html`<form><input name="__proto__" value="dropped" data-svc-capture>
      <input name="constructor" value="kept" data-svc-capture></form>`);
    submit(form);
    const values = named(capture.events, 'Submit On')[0]!.data!.values as Record<string, unknown>;
    expect(Object.getPrototypeOf(values)).to.equal(Object.prototype);
    expect(Object.keys(values)).to.deep.equal(['constructor']);
    expect(values.constructor).to.equal('kept');
  });

  it('Click On also for a button inside a shadow root (the event reaches the document retargeted to the host)', async () => {
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    host.attachShadow({ mode: 'open' }).innerHTML = '<button id="buy" class="cta">Buy now</button>';
    host.shadowRoot!.querySelector('button')!.click();
    const [click] = named(capture.events, 'Click On');
    expect(click?.data).to.include({ tag: 'button', id: 'buy', text: 'Buy now' });
  });

  it('Click On bounds a link\'s href (a data: link of a generated download can be larger than an event may be)', async () => {
    const link = await fixture<HTMLAnchorElement>(html`<a download="export.csv" href=${`data:text/csv,${'x,'.repeat(10_000)}`}>Export</a>`);
    link.addEventListener('click', (e) => e.preventDefault());
    link.click();
    const [click] = named(capture.events, 'Click On');
    expect(String(click?.data?.href).length).to.equal(2048);
  });

  it('Submit On sends the checked radio of a group and the checked box of a set, not the last field of the name', async () => {
    const form = await fixture<HTMLFormElement>(html`<form>
      <input type="radio" name="size" value="S" data-svc-capture checked><input type="radio" name="size" value="M" data-svc-capture>
      <input type="checkbox" name="opt" value="a" data-svc-capture checked><input type="checkbox" name="opt" value="b" data-svc-capture>
      <button>Send</button></form>`);
    submit(form);
    const [sent] = named(capture.events, 'Submit On');
    expect(sent?.data?.values).to.deep.equal({ size: 'S', opt: 'a' });
  });

  it('a click outside any link or button is not tracked', async () => {
    const el = await fixture(html`<p>plain <b>text</b></p>`);
    el.querySelector('b')!.click();
    expect(named(capture.events, 'Click On')).to.deep.equal([]);
  });

  it('Change On describes the field and carries no value unless the field opts in', async () => {
    const form = await fixture<HTMLFormElement>(html`<form>
      <input id="q" class="search" name="q"><textarea name="note" data-svc-capture></textarea></form>`);
    type(form.querySelector('input')!, 'secret search');
    type(form.querySelector('textarea')!, 'shared note');
    const [plain, opted] = named(capture.events, 'Change On');
    expect(plain!.data).to.deep.equal({ tag: 'input', id: 'q', classes: ['search'], selector: 'input#q', field: 'q', type: 'text' });
    expect(opted!.data).to.include({ field: 'note', value: 'shared note' });
  });

  it('Submit On is emitted synchronously, before the submit handlers of the page run', async () => {
    const form = await fixture<HTMLFormElement>(html`<form id="newsletter" method="post" action="/subscribe"><button>Go</button></form>`);
    let seenByPage = -1;
    form.addEventListener('submit', () => void (seenByPage = named(capture.events, 'Submit On').length));
    submit(form);
    expect(seenByPage).to.equal(1);
    expect(named(capture.events, 'Submit On')[0]!.data).to.deep.equal({
      tag: 'form', id: 'newsletter', classes: [], selector: 'form#newsletter', method: 'post', action: '/subscribe',
    });
  });

  it('every name the tracker emitted here is a title user calls may not use', async () => {
    const form = await fixture<HTMLFormElement>(html`<form><input name="a"><button>Go</button></form>`);
    type(form.querySelector('input')!, 'x');
    submit(form, form.querySelector('button')!);
    form.querySelector('button')!.addEventListener('click', (e) => e.preventDefault(), { once: true });
    form.querySelector('button')!.click();
    const names = new Set(capture.events.filter((e) => e.type !== 'session').map((e) => e.name));
    expect([...names].sort()).to.deep.equal(['Change On', 'Click On', 'Submit On', 'View Page']);
    for (const name of names) expect(FORBIDDEN_TITLES).to.include(name.toLowerCase());
  });

  for (const title of ['View Page', 'Leave Page', 'Click On', 'Change On', 'Submit On', 'Auto-Track']) {
    it(`track() still refuses the tracker's title "${title}"`, () => {
      expect(() => makeSvc().track({ eventTitle: title, data: { a: 1 } })).to.throw(`The '${title}' event title is forbidden`);
    });
  }
});
