import { expect, fixture, html } from '@open-wc/testing';
import type { ServiceEvent } from '../../src/index.js';
import { captureEvents, cleanup, makeSvc, stubFetch } from '../../test/helpers/svc.js';
import { autoTrack } from './index.js';
import { redactUrl } from './redact-url.js';

describe('auto-track: URLs without secrets or e-mail addresses', () => {
  const home = location.href;
  let capture: ReturnType<typeof captureEvents>;

  beforeEach(() => {
    stubFetch();
    capture = captureEvents();
  });
  afterEach(async () => {
    capture.stop();
    await cleanup();
    history.replaceState(null, '', home);
  });

  it('redacts the values of sensitive parameters and e-mail addresses, and keeps the rest', () => {
    const cases: [string, string][] = [
      ['https://s.example/reset?token=abc123&utm_source=mail&page=2', 'https://s.example/reset?token=(redacted)&utm_source=mail&page=2'],
      ['https://s.example/?Password=x&PWD=y&api_key=z&sessionid=w&auth=v', 'https://s.example/?Password=(redacted)&PWD=(redacted)&api_key=(redacted)&sessionid=(redacted)&auth=(redacted)'],
      ['https://s.example/?user_email=a%40b.com&q=shoes', 'https://s.example/?user_email=(redacted)&q=shoes'],
      ['https://s.example/thanks?to=jane.doe%2Bshop@example.co.uk', 'https://s.example/thanks?to=(redacted)'],
      ['https://s.example/u/jane@example.com/orders', 'https://s.example/u/(redacted)/orders'],
      ['https://s.example/cb#access_token=t0k&state=1', 'https://s.example/cb#access_token=(redacted)&state=1'],
      ['https://s.example/?utm_term=secret+sale&keyword=x', 'https://s.example/?utm_term=secret+sale&keyword=(redacted)'],
      ['https://s.example/p/1?color=red', 'https://s.example/p/1?color=red'],
    ];
    for (const [url, expected] of cases) expect(redactUrl(url), url).to.equal(expected);
    expect(redactUrl('https://s.example/?ref=abc&q=1', ['REF'])).to.equal('https://s.example/?ref=(redacted)&q=1');
  });

  it('page views, leaves, session starts and clicked links carry redacted URLs', async () => {
    history.replaceState(null, '', '?token=abc123&utm_campaign=fall&email=jane%40example.com');
    const svc = makeSvc();
    svc.use(autoTrack({ redactParams: ['coupon'] }));
    const link = await fixture<HTMLAnchorElement>(html`<a href="/next?coupon=FREE10&x=1">next</a>`);
    link.addEventListener('click', (e) => e.preventDefault());
    link.click();
    history.pushState(null, '', '/spa/after?session=s1');
    const urls = capture.events.flatMap((e: ServiceEvent) => ['url', 'referrer', 'landingPage', 'href'].map((k) => e.data?.[k])).filter((v): v is string => typeof v === 'string');
    expect(urls.length).to.be.greaterThan(3);
    for (const url of urls) {
      expect(url).not.to.include('abc123');
      expect(url).not.to.include('jane');
      expect(url).not.to.include('FREE10');
      expect(url).not.to.include('s1');
    }
    expect(urls.some((u) => u.includes('utm_campaign=fall'))).to.equal(true);
    expect(urls.some((u) => u.includes('coupon=(redacted)&x=1'))).to.equal(true);
  });

  it('paths, UTM values and form actions are redacted too', async () => {
    history.replaceState(null, '', '/u/jane@example.com/orders?utm_term=jane%40example.com&utm_source=mail');
    const svc = makeSvc();
    svc.use(autoTrack());
    const form = await fixture<HTMLFormElement>(html`<form action="/reset?token=abc123&email=jane@example.com&step=2"></form>`);
    form.addEventListener('submit', (e) => e.preventDefault());
    form.requestSubmit();
    const view = capture.events.find((e) => e.name === 'View Page');
    const start = capture.events.find((e) => e.name === 'Session start');
    const submit = capture.events.find((e) => e.name === 'Submit On');
    expect(view?.data?.path).to.equal('/u/(redacted)/orders');
    expect(start?.data?.utm).to.deep.equal({ term: '(redacted)', source: 'mail' });
    expect(submit?.data?.action).to.equal('/reset?token=(redacted)&email=(redacted)&step=2');
    expect(JSON.stringify(capture.events)).not.to.include('jane');
    expect(JSON.stringify(capture.events)).not.to.include('abc123');
  });
});
