// What the Choose route keeps of a request for results' breakdowns: the browser family of its User-Agent, the page's
// utm_source and utm_medium — and nothing else of the URL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exposureContext } from '../../../server/choose/exposure-context.js';
import { browserFamily } from '../../../server/http/browser-family.js';

const FAMILIES: [string, string | null][] = [
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0', 'Edge'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0', 'Opera'],
  ['Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36', 'Samsung Internet'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15', 'Firefox'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1', 'Chrome'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15', 'Safari'],
  ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Bot'],
  ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36', 'Bot'],
  ['curl/8.5.0', 'Other'],
  ['', null],
];

describe('browserFamily', () => {
  for (const [userAgent, family] of FAMILIES) {
    it(`${String(family)} for ${userAgent.slice(0, 60) || '(no header)'}`, () => assert.equal(browserFamily(userAgent), family));
  }
});

describe('exposureContext', () => {
  it('keeps the browser family and the page\'s utm_source and utm_medium, nothing else', () => {
    assert.deepEqual(JSON.parse(exposureContext('curl/8', 'https://shop.example/p?id=7&utm_source=news&utm_medium=email&email=a@b.c#x')!),
      { browser: 'Other', utm_source: 'news', utm_medium: 'email' });
    assert.deepEqual(JSON.parse(exposureContext(undefined, 'https://shop.example/?utm_medium=cpc')!), { utm_medium: 'cpc' });
  });

  it('is null when the request says nothing, and cuts a long campaign name', () => {
    assert.equal(exposureContext(undefined, 'https://shop.example/?q=utm_'), null);
    assert.equal(exposureContext(undefined, undefined), null);
    assert.equal(JSON.parse(exposureContext(undefined, `/?utm_source=${'x'.repeat(500)}`)!).utm_source.length, 100);
  });
});
