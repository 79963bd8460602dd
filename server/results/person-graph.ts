import { valuesOp, type SqlProgram } from '../storage/sql-program.js';
import { str } from '../storage/sql-values.js';

/**
 * Profile id → the person it belongs to: an opaque key, the same for every profile of that person (the profile id
 * itself for a profile nobody linked), to be compared or used as a Map key.
 */
export type PersonOf = (profileId: string) => unknown;

/** A linked profile or user id in the union–find forest; a root stands for its person. */
interface Node {
  parent: Node | null;
}

function root(node: Node): Node {
  let top = node;
  while (top.parent !== null) top = top.parent;
  // Path compression: later finds from this chain take one step.
  for (let at = node; at !== top;) {
    const next = at.parent as Node;
    at.parent = top;
    at = next;
  }
  return top;
}

/**
 * The people of a project: each profile together with every profile linked to it by identify or alias, from every
 * link those events made (`person_links`: a profile and its userId, and for an alias the anotherUserId it joined),
 * joined with union–find. Profiles and user ids are nodes of two maps (an id may be both a profile id and a user id
 * without meaning the same thing).
 * @example const personOf = yield* personGraphProgram('acme/shop'); personOf('p1') === personOf('p2')
 */
export function* personGraphProgram(project: string): SqlProgram<PersonOf> {
  const profiles = new Map<string, Node>();
  const users = new Map<string, Node>();
  const node = (map: Map<string, Node>, id: unknown): Node => {
    const key = str(id);
    let found = map.get(key);
    if (found === undefined) {
      found = { parent: null };
      map.set(key, found);
    }
    return found;
  };
  const union = (a: Node, b: Node): void => {
    const ra = root(a);
    const rb = root(b);
    if (ra !== rb) ra.parent = rb;
  };
  const { values = [] } = yield valuesOp('SELECT profile_id, user_id, other_user_id FROM person_links WHERE project = ?', project);
  for (const [profile, user, other] of values) {
    const person = node(users, user);
    union(node(profiles, profile), person);
    if (other !== '') union(node(users, other), person);
  }
  return (profileId) => {
    const found = profiles.get(profileId);
    return found === undefined ? profileId : root(found);
  };
}
