// <svc-consent>'s built-in texts: a module per language, of which a page loads only the one its banner shows. This
// file has its own page, so the module loads it sees are its own (languages: fr, then de, then es failing, then en).
import { expect, fixture, html } from '@open-wc/testing';
import { cleanup, makeSvc } from '../../test/helpers/svc.js';
import { bannerLanguage } from './banner-language.js';
import { consentBanner, type SvcConsent } from './index.js';

// The page loads more modules than the browser's default 250 resource entries: room for the texts' requests.
performance.setResourceTimingBufferSize(10_000);

/** The languages whose texts module this page has requested, in order (the test runner serves them as .ts). */
function requestedTexts(): string[] {
  return performance.getEntriesByType('resource')
    .map((e) => /\/consent-banner\/texts\/(\w+)\.[jt]s\b/.exec(e.name)?.[1])
    .filter((language): language is string => language !== undefined);
}

const accept = (el: SvcConsent): string | null | undefined =>
  el.shadowRoot!.querySelector('button[part~="accept"]')?.textContent;

/** Fails the module loads of `paths` while `run` runs: the test runner answers 503 for them (test/helpers/failing-modules.mjs). */
async function failing(paths: string[], run: () => Promise<void>): Promise<void> {
  document.cookie = `svc-fail-modules=${encodeURIComponent(paths.join(','))}; path=/`;
  try {
    await run();
  } finally {
    document.cookie = 'svc-fail-modules=; path=/; max-age=0';
  }
}

describe('<svc-consent> texts', () => {
  const removers: (() => void)[] = [];
  beforeEach(() => removers.push(makeSvc({ consent: { required: true } }).use(consentBanner())));
  afterEach(async () => {
    for (const remove of removers.splice(0)) remove();
    await cleanup();
  });

  it('stays empty until the texts of its language have come, and loads that language only', async () => {
    const el = document.createElement('svc-consent');
    el.lang = 'fr';
    document.body.append(el);
    removers.push(() => el.remove());
    await new Promise<void>((resolve) => queueMicrotask(resolve)); // its first render, which asks for the texts
    expect(el.open).to.equal(true);
    expect(el.shadowRoot!.childNodes.length, 'nothing shows before the texts').to.equal(0);
    await el.updateComplete;
    expect(accept(el)).to.equal('Tout accepter');
    expect(el.shadowRoot!.querySelector('h2')!.textContent).to.equal('Votre vie privée');
    expect(requestedTexts()).to.deep.equal(['fr']);
  });

  it('a change of lang loads that language and renders in it; the previous one shows until then', async () => {
    const el = await fixture<SvcConsent>(html`<svc-consent lang="fr"></svc-consent>`);
    expect(accept(el)).to.equal('Tout accepter');
    el.setAttribute('lang', 'de-CH');
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    expect(accept(el), 'while German loads').to.equal('Tout accepter');
    await el.updateComplete;
    expect(accept(el)).to.equal('Alle akzeptieren');
    el.shadowRoot!.querySelector<HTMLButtonElement>('button[part~="customize"]')!.click();
    expect(el.shadowRoot!.querySelector('legend')!.textContent).to.equal('Anpassen');
    expect(el.shadowRoot!.querySelector('label')!.textContent).to.equal(' Notwendig');
    expect(requestedTexts()).to.deep.equal(['fr', 'de']);
  });

  it('falls back to English when its language fails to load, and puts no error into the page', async () => {
    const rejections: unknown[] = [];
    const onRejection = (e: PromiseRejectionEvent): void => void rejections.push(e.reason);
    window.addEventListener('unhandledrejection', onRejection);
    try {
      await failing(['/plugins/consent-banner/texts/es.ts'], async () => {
        const el = await fixture<SvcConsent>(html`<svc-consent lang="es"></svc-consent>`);
        expect(accept(el)).to.equal('Accept all');
        expect(el.shadowRoot!.querySelector('h2')!.textContent).to.equal('Your privacy');
      });
      // An unhandled rejection is reported in a task after the microtasks that could have handled it.
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      window.removeEventListener('unhandledrejection', onRejection);
    }
    expect(rejections).to.deep.equal([]);
    expect(requestedTexts()).to.deep.equal(['fr', 'de', 'es', 'en']);
  });

  it('the language rule: the element\'s lang, else the document\'s, by its first two letters; English for the others', () => {
    const root = document.documentElement;
    const was = root.lang;
    const el = document.createElement('svc-consent');
    try {
      root.lang = 'de-AT';
      expect(bannerLanguage(el)).to.equal('de');
      el.lang = 'FR-ca';
      expect(bannerLanguage(el)).to.equal('fr');
      el.lang = 'pt-BR';
      expect(bannerLanguage(el)).to.equal('en');
      el.lang = '';
      root.lang = 'es';
      expect(bannerLanguage(el)).to.equal('es');
      root.lang = '';
      expect(bannerLanguage(el)).to.equal('en');
    } finally {
      root.lang = was;
    }
  });
});
