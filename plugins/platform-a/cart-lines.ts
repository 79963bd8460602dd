import { toQuantity } from '../../src/plugin-api.js';

/** A line of a `/cart/add` request: the variant (Shopify's `id`) and how many were added. */
export interface CartLine {
  variantId: string;
  quantity: number;
  productId?: string;
}

type Raw = Record<string, unknown>;

function line(raw: Raw): CartLine | null {
  const id = raw.id ?? raw.variant_id;
  if (id === undefined || id === null || id === '') return null;
  const productId = raw['product-id'] ?? raw.product_id;
  return { variantId: String(id), quantity: toQuantity(raw.quantity), ...(productId ? { productId: String(productId) } : {}) };
}

/** Shopify's form fields: `id`, `quantity`, `product-id` (Dawn), or `items[0][id]`, `items[0][quantity]`. */
function fromForm(form: URLSearchParams | FormData): Raw[] {
  const rows = new Map<string, Raw>();
  form.forEach((value, key) => {
    const m = /^items\[(\d+)\]\[(\w+)\]$/.exec(key);
    const row = rows.get(m ? m[1]! : '') ?? {};
    rows.set(m ? m[1]! : '', row);
    row[m ? m[2]! : key] = value;
  });
  return [...rows.values()];
}

/**
 * The lines of a Cart API add request body: JSON `{id, quantity}` or `{items: [...]}`, form-encoded text,
 * URLSearchParams or FormData (what the Cart API documents and themes send).
 */
export function cartLines(body: unknown): CartLine[] {
  let raws: Raw[] = [];
  if (typeof body === 'string') {
    try {
      const json = JSON.parse(body) as Raw;
      raws = Array.isArray(json.items) ? (json.items as Raw[]) : [json];
    } catch {
      raws = fromForm(new URLSearchParams(body));
    }
  } else if (body instanceof URLSearchParams || body instanceof FormData) {
    raws = fromForm(body);
  }
  return raws.flatMap((r) => (r && typeof r === 'object' ? line(r) ?? [] : []));
}

/** What a Cart API answer says of a variant: its product, and its unit price after discounts in cents. */
export interface AnsweredLine {
  productId?: string;
  cents?: number;
}

/** The variant → line map of a Cart API answer (a line item, or `{items: [...]}`). */
export function linesOfAnswer(answer: unknown): Map<string, AnsweredLine> {
  const a = answer as Raw | null;
  const items = (Array.isArray(a?.items) ? a.items : [a]) as (Raw | null)[];
  const map = new Map<string, AnsweredLine>();
  for (const item of items) {
    const variant = item?.variant_id ?? item?.id;
    const cents = item?.final_price ?? item?.price;
    if (variant) {
      map.set(String(variant), {
        ...(item!.product_id ? { productId: String(item!.product_id) } : {}),
        ...(typeof cents === 'number' ? { cents } : {}),
      });
    }
  }
  return map;
}

/** `/cart/add`, `/cart/add.js`, `/fr/cart/add.json`…: the Cart API's add endpoint, with any locale prefix. */
export function isCartAdd(url: string | null | undefined): boolean {
  if (!url) return false;
  try {
    return /\/cart\/add(\.js(on)?)?$/.test(new URL(url, location.href).pathname);
  } catch {
    return false;
  }
}
