import { op, type SqlProgram } from '../storage/sql-program.js';
import { str } from '../storage/sql-values.js';

/** Profile id → the person it belongs to (an opaque id shared by every profile of that person). */
export type PersonOf = (profileId: string) => string;

/**
 * The people of a project: each profile together with every profile linked to it by identify or alias, read
 * from the identity graph's three link tables and joined with union–find. A profile nobody linked is a person of
 * its own. Profile and user ids live in one set of nodes, told apart by a prefix.
 * @example const personOf = yield* personGraphProgram('acme/shop'); personOf('p1') === personOf('p2')
 */
export function* personGraphProgram(project: string): SqlProgram<PersonOf> {
  const parent = new Map<string, string>();
  const find = (node: string): string => {
    let root = node;
    for (let next = parent.get(root); next !== undefined && next !== root; next = parent.get(root)) root = next;
    // Path compression: later finds of this chain take one step.
    for (let at = node; at !== root;) {
      const next = parent.get(at) as string;
      parent.set(at, root);
      at = next;
    }
    return root;
  };
  const union = (a: string, b: string): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  };
  const profileUsers = yield op('SELECT profile_id, user_id FROM profile_users WHERE project = ?', project);
  for (const row of profileUsers.rows) union(`p:${str(row.profile_id)}`, `u:${str(row.user_id)}`);
  const identities = yield op('SELECT user_id, profile_id FROM identities WHERE project = ?', project);
  for (const row of identities.rows) union(`u:${str(row.user_id)}`, `p:${str(row.profile_id)}`);
  const aliases = yield op('SELECT user_id, target_user_id FROM aliases WHERE project = ?', project);
  for (const row of aliases.rows) union(`u:${str(row.user_id)}`, `u:${str(row.target_user_id)}`);
  return (profileId) => {
    const node = `p:${profileId}`;
    return parent.has(node) ? find(node) : node;
  };
}
