/**
 * Whether two arrays hold the same elements in the same order, compared with `===` (the same objects, or equal
 * strings): how the Choose hot path recognises a request or an answer it has seen just before.
 * @example sameElements(['a', 'b'], ['a', 'b']) // true
 */
export function sameElements(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
