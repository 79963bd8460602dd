let lastMs = 0;
let counter = 0;

const hex = (n: number, digits: number): string => n.toString(16).padStart(digits, '0');

/**
 * An RFC 9562 UUID version 7: 48 bits of Unix milliseconds, a 12-bit counter, the variant, 62 random bits. Ids minted
 * later sort later, so the service appends them at the right edge of its indexes instead of on a random page.
 * Within one millisecond the counter (started at a random value with room for 2,048 more) keeps them increasing;
 * should it run out, the next millisecond is borrowed (RFC 9562, method 1). `crypto.getRandomValues` exists in every
 * context, secure or not: CMS pages are still served over plain http often enough.
 */
export function uuid(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = (Math.random() * 0x800) | 0;
  } else if (++counter > 0xfff) {
    lastMs++;
    counter = 0;
  }
  const [a, b] = crypto.getRandomValues(new Uint32Array(2));
  const ms = hex(lastMs, 12);
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7${hex(counter, 3)}-${hex(0x8000 | (a >>> 18), 4)}-${hex(a & 0xffff, 4)}${hex(b, 8)}`;
}
