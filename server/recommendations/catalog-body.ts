import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { ProductConfig } from '../config/config-types.js';
import { ServiceError } from '../errors/service-error.js';
import { validateProduct } from './validate-product.js';

/** Products per catalog call (issue 6): one call can carry a whole mid-size shop. */
export const MAX_CATALOG_PRODUCTS = 100_000;
/** The catalog route's own body limit: 100,000 products of a few hundred bytes each; other routes keep 1 MiB. */
export const CATALOG_BODY_LIMIT = 64 * 1024 * 1024;

/** Products already validated while the NDJSON stream was read (so the handler does not validate twice). */
export class ValidatedProducts {
  constructor(readonly products: ProductConfig[]) {}
}

function tooMany(): ServiceError {
  return new ServiceError('invalid_catalog', `A catalog call takes at most ${MAX_CATALOG_PRODUCTS} products; split the upload.`);
}

/**
 * A JSON array body (already parsed by Fastify) → validated products, the first bad item named by its index.
 * @example productsFromArray(request.body)
 */
export function productsFromArray(body: unknown): ProductConfig[] {
  if (body instanceof ValidatedProducts) return body.products;
  if (!Array.isArray(body)) throw new ServiceError('invalid_catalog', 'The body must be a JSON array of products or an application/x-ndjson stream.');
  if (body.length === 0) throw new ServiceError('invalid_catalog', 'The catalog body holds no products.');
  if (body.length > MAX_CATALOG_PRODUCTS) throw tooMany();
  return body.map((raw, i) => validateProduct(raw, `products[${i}]`));
}

/**
 * Reads an `application/x-ndjson` body line by line as it arrives: each line is parsed and validated at once
 * (`products[i]` counts non-empty lines from 0), so a bad line 17 fails before the rest is read and no 64 MiB
 * string is ever built. Fastify does not apply bodyLimit to stream parsers, so the bytes are counted here.
 */
export async function productsFromNdjson(stream: Readable, limit: number): Promise<ValidatedProducts> {
  const decoder = new StringDecoder('utf8');
  const products: ProductConfig[] = [];
  let bytes = 0;
  let rest = '';
  const take = (line: string): void => {
    if (line.trim().length === 0) return;
    const index = products.length;
    if (index >= MAX_CATALOG_PRODUCTS) throw tooMany();
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      throw new ServiceError('invalid_product', `products[${index}]: is not valid JSON`);
    }
    products.push(validateProduct(raw, `products[${index}]`));
  };
  // Not destroyed when a line is refused: the error handler reads and discards the rest, so the client reads the 400.
  for await (const chunk of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer | string>) {
    bytes += chunk.length;
    if (bytes > limit) throw new ServiceError('payload_too_large', `The catalog body is over the ${limit / 1024 / 1024} MiB limit.`);
    const text = rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) take(line);
  }
  take(rest + decoder.end());
  if (products.length === 0) throw new ServiceError('invalid_catalog', 'The catalog body holds no products.');
  return new ValidatedProducts(products);
}
