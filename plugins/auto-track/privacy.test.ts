import { expect, fixture, html } from '@open-wc/testing';
import type sinon from 'sinon';
import { captureEvents, cleanup, makeSvc, sentBatches, stubFetch } from '../../test/helpers/svc.js';
import { autoTrack } from './index.js';

const SECRETS = {
  password: 'hunter2-PASSWORD-secret',
  optedInPassword: 'opted-in-PASSWORD-secret',
  hidden: 'csrf-HIDDEN-token-secret',
  optedInHidden: 'opted-in-HIDDEN-secret',
  text: 'typed-but-not-opted-in-secret',
  noCaptureField: 'inside-no-capture-secret',
  noCaptureText: 'Jane Doe private greeting',
};

function type(el: HTMLInputElement, value: string): void {
  el.value = value;
  el.dispatchEvent(new Event('change', { bubbles: true }));
}

function submit(form: HTMLFormElement, submitter?: HTMLElement): void {
  form.addEventListener('submit', (e) => e.preventDefault(), { once: true });
  form.requestSubmit(submitter ?? null);
}

describe('auto-track: privacy', () => {
  let capture: ReturnType<typeof captureEvents>;
  let fetchStub: sinon.SinonStub;

  beforeEach(() => {
    fetchStub = stubFetch();
    capture = captureEvents();
  });
  afterEach(async () => {
    capture.stop();
    await cleanup();
  });

  it('a submitted form sends no value of its password, hidden or un-opted fields, in any event or request', async () => {
    const svc = makeSvc();
    svc.use(autoTrack());
    const form = await fixture<HTMLFormElement>(html`<form id="login" method="post" action="/login">
      <input name="email" type="email" data-svc-capture>
      <input name="password" type="password">
      <input name="pin" type="password" data-svc-capture>
      <input name="csrf" type="hidden" value=${SECRETS.hidden}>
      <input name="ref" type="hidden" value=${SECRETS.optedInHidden} data-svc-capture>
      <input name="nickname">
      <button>Sign in</button>
    </form>`);
    const field = (name: string): HTMLInputElement => form.querySelector(`[name=${name}]`)!;
    type(field('email'), 'jane@example.com');
    type(field('password'), SECRETS.password);
    type(field('pin'), SECRETS.optedInPassword);
    type(field('nickname'), SECRETS.text);
    submit(form, form.querySelector('button')!);
    await svc.flush();

    const everything = JSON.stringify(capture.events) + JSON.stringify(sentBatches(fetchStub));
    for (const secret of Object.values(SECRETS)) expect(everything).not.to.contain(secret);
    expect(capture.events.filter((e) => e.name === 'Change On')).to.have.length(4);
    const [submitted] = capture.events.filter((e) => e.name === 'Submit On');
    expect(submitted!.data!.values, 'only the opted-in, non-secret field').to.deep.equal({ email: 'jane@example.com' });
  });

  it('data-svc-capture opts a field in: its value is in Change On and Submit On', async () => {
    makeSvc().use(autoTrack());
    const form = await fixture<HTMLFormElement>(html`<form><select name="size" data-svc-capture>
      <option>S</option><option>M</option></select></form>`);
    const select = form.querySelector('select')!;
    select.value = 'M';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    submit(form);
    expect(capture.events.find((e) => e.name === 'Change On')!.data!.value).to.equal('M');
    expect(capture.events.find((e) => e.name === 'Submit On')!.data!.values).to.deep.equal({ size: 'M' });
  });

  const insideNoCapture: { name: string; act: (root: HTMLElement) => void }[] = [
    { name: 'a click on a link', act: (r) => r.querySelector('a')!.click() },
    { name: 'a click on a nested button', act: (r) => r.querySelector('button b')!.dispatchEvent(new MouseEvent('click', { bubbles: true })) },
    { name: 'a change, even of an opted-in field', act: (r) => type(r.querySelector('input')!, SECRETS.noCaptureField) },
    { name: 'a submit', act: (r) => submit(r.querySelector('form')!) },
  ];
  for (const { name, act } of insideNoCapture) {
    it(`${name} inside a data-svc-no-capture subtree sends nothing at all`, async () => {
      makeSvc().use(autoTrack());
      const root = await fixture<HTMLElement>(html`<section data-svc-no-capture><div><a href="#me">${SECRETS.noCaptureText}</a>
        <form><input name="x" data-svc-capture><button type="button"><b>Pay</b></button></form></div></section>`);
      root.addEventListener('click', (e) => e.preventDefault()); // stay on the test page
      const before = capture.events.length;
      act(root);
      expect(capture.events.slice(before)).to.deep.equal([]);
    });
  }

  it('a link whose text holds a no-capture part is tracked without its text', async () => {
    makeSvc().use(autoTrack());
    const nav = await fixture(html`<nav><a id="account" href="#account">Hello, <span data-svc-no-capture>${SECRETS.noCaptureText}</span></a></nav>`);
    nav.addEventListener('click', (e) => e.preventDefault());
    nav.querySelector('a')!.click();
    const [click] = capture.events.filter((e) => e.name === 'Click On');
    expect(click!.data).to.include({ id: 'account' }).and.not.have.property('text');
    expect(JSON.stringify(capture.events)).not.to.contain(SECRETS.noCaptureText);
  });

  it('a click inside an editable region (what the visitor typed) is not tracked; one outside it is', async () => {
    makeSvc().use(autoTrack());
    const page = await fixture(html`<div>
      <div contenteditable="true"><p>Note: <a id="typed" href="https://x.example/?q=1">${SECRETS.text}</a></p></div>
      <button id="save">Save</button></div>`);
    page.addEventListener('click', (e) => e.preventDefault());
    page.querySelector<HTMLAnchorElement>('#typed')!.click();
    page.querySelector<HTMLButtonElement>('#save')!.click();
    const clicks = capture.events.filter((e) => e.name === 'Click On');
    expect(clicks.map((e) => e.data?.id)).to.deep.equal(['save']);
    expect(JSON.stringify(capture.events)).not.to.contain(SECRETS.text);
    expect(JSON.stringify(capture.events)).not.to.contain('x.example');
  });
});

