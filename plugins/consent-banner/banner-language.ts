/** The languages the banner has built-in texts for. */
export type BannerLanguage = 'en' | 'de' | 'fr' | 'es';

/** The language of a banner's built-in texts: its own `lang`, else the document's; English when neither is one of ours. */
export function bannerLanguage(element: Element): BannerLanguage {
  const lang = (element.getAttribute('lang') || document.documentElement.lang).slice(0, 2).toLowerCase();
  return lang === 'de' || lang === 'fr' || lang === 'es' ? lang : 'en';
}
