import { textOf } from '../../src/plugin-api.js';

/**
 * A card's price as the visitor reads prices: their locale's digits and the product's currency (`12,50 €` in France,
 * `€12.50` in Ireland for `12.5` and `EUR`). A price that is not a number, or a currency `Intl` does not know (or none:
 * it throws), shows as the feed wrote it.
 *
 * @example priceText(12.5, 'EUR') // '€12.50' in en-US
 */
export function priceText(price: unknown, currency: unknown): string {
  const code = textOf(currency);
  try {
    if (typeof price === 'number') return new Intl.NumberFormat(undefined, { style: 'currency', currency: code }).format(price);
  } catch {
    // Not an ISO 4217 code.
  }
  return `${textOf(price)} ${code}`;
}
