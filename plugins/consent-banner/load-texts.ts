import type { BannerLanguage } from './banner-language.js';
import type { ConsentTexts } from './consent-texts.js';

// One import() per language, each with a literal specifier: esbuild's code splitting (and a bundler using the ESM
// package) makes every language a chunk of its own, and a page downloads only the one its banner shows.
const modules: Record<BannerLanguage, () => Promise<{ default: ConsentTexts }>> = {
  en: () => import('./texts/en.js'),
  de: () => import('./texts/de.js'),
  fr: () => import('./texts/fr.js'),
  es: () => import('./texts/es.js'),
};

/**
 * The built-in texts of `language`; English when its module fails to load (a network error, a missing chunk), and
 * `undefined` when English fails too. It never rejects: a banner's texts are not worth an error in the page.
 */
export function loadTexts(language: BannerLanguage): Promise<ConsentTexts | undefined> {
  return modules[language]().catch(() => modules.en()).then((m) => m.default, () => undefined);
}
