import { hash } from './hash.js';

/** `[namespaceId, start, end]`: experiments sharing an id and disjoint [start, end) never overlap. */
export type Namespace = readonly [id: string, start: number, end: number];

/**
 * Whether `unit` falls in the namespace's slice, GrowthBook's `inNamespace`. Always hash v1 with
 * seed `__<id>`: the slice must not depend on any one experiment's seed or hash version, or two
 * experiments of one namespace could both claim a unit.
 *
 * @example inNamespace('1', ['namespace1', 0.4, 1]) // true
 */
export function inNamespace(unit: string, namespace: Namespace): boolean {
  const n = hash(`__${namespace[0]}`, unit, 1);
  if (n === null) return false;
  return n >= namespace[1] && n < namespace[2];
}
