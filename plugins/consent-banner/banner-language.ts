// Imports nothing: the SDK's chunk loader preloads the banner's texts by this same rule without loading the banner.

/** A language the banner has built-in texts in. */
export type BannerLanguage = 'en' | 'de' | 'fr' | 'es';

/**
 * The language of `<svc-consent>`'s built-in texts: the element's `lang`, else the document's, by its first two
 * letters (`fr-CA` is `fr`); English when the banner has no texts in it.
 * @example bannerLanguage(document.querySelector('svc-consent')!) // 'de' on <html lang="de-AT">
 */
export function bannerLanguage(element: HTMLElement): BannerLanguage {
  const base = (element.lang || document.documentElement.lang).slice(0, 2).toLowerCase();
  return base === 'de' || base === 'fr' || base === 'es' ? base : 'en';
}
