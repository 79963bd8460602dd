import { browserFamily } from '../http/browser-family.js';

/** What results break an experiment down by, kept with each exposure row (JSON text, only what is known). */
export interface ExposureContext {
  browser?: string;
  utm_source?: string;
  utm_medium?: string;
}

/** The longest utm value kept: a campaign name, not a payload. */
const MAX_UTM = 100;

/**
 * The context of a Choose request's exposures: the browser family of its User-Agent, and the `utm_source` and
 * `utm_medium` of the page it names (`url`). Null when neither says anything.
 * @example exposureContext('… Firefox/133.0', 'https://shop.example/?utm_source=news') // '{"browser":"Firefox","utm_source":"news"}'
 */
export function exposureContext(userAgent: string | undefined, url: string | undefined): string | null {
  const context: ExposureContext = {};
  const browser = browserFamily(userAgent);
  if (browser !== null) context.browser = browser;
  if (url !== undefined && url.includes('utm_')) {
    const query = url.indexOf('?');
    const params = new URLSearchParams(query < 0 ? '' : url.slice(query + 1).split('#')[0]);
    for (const key of ['utm_source', 'utm_medium'] as const) {
      const value = params.get(key);
      if (value) context[key] = value.slice(0, MAX_UTM);
    }
  }
  return Object.keys(context).length === 0 ? null : JSON.stringify(context);
}
