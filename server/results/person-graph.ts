import { valuesOp, type SqlProgram } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';

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

/** Ids per `IN` list: one statement text per read (a short last list repeats its first id). */
const CHUNK = 500;
const IDS = `(${Array.from({ length: CHUNK }, () => '?').join(', ')})`;
const LINKS = 'SELECT profile_id, user_id, other_user_id FROM person_links WHERE project = ?';
/**
 * The links that touch a profile (the key), a user (person_links_user) or an aliased user (person_links_other, which
 * holds no identify's '').
 */
const BY_PROFILE = `${LINKS} AND profile_id IN ${IDS}`;
const BY_USER = `${LINKS} AND user_id IN ${IDS}`;
const BY_OTHER_USER = `${LINKS} AND other_user_id <> '' AND other_user_id IN ${IDS}`;

/** The rows of `sql` for `ids`, a list at a time. */
function* linksOf(sql: string, project: string, ids: readonly string[]): SqlProgram<unknown[][]> {
  const out: unknown[][] = [];
  for (let at = 0; at < ids.length; at += CHUNK) {
    const chunk = ids.slice(at, at + CHUNK);
    while (chunk.length < CHUNK) chunk.push(chunk[0]!);
    const { values = [] } = yield valuesOp(sql, project, ...chunk);
    for (const row of values) out.push(row);
  }
  return out;
}

/**
 * The people of the profiles `exposed`: each profile together with every profile linked to it by identify or alias,
 * from every link those events made (`person_links`: a profile and its userId, and for an alias the anotherUserId
 * it joined), joined with union–find. Only the links reachable from `exposed` are read, through indexes: a profile's
 * links lead to user ids, a user id's to other profiles and users, until nothing new turns up; so a person is whole
 * (every profile of theirs maps to them) and the rest of the project is not read, unless it has fewer links than
 * `exposed` has profiles. Profiles and user ids are nodes of two maps (an id may be both a profile id and a user id
 * without meaning the same thing).
 * @example const personOf = yield* personGraphProgram('acme/shop', ['p1']); personOf('p1') === personOf('p2')
 */
export function* personGraphProgram(project: string, exposed: Iterable<string>): SqlProgram<PersonOf> {
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
  /** Joins the links `rows` made; `reach` is told each profile and user id they name. */
  const join = (rows: unknown[][], reach?: (seen: Set<string>, next: string[], id: string) => void): void => {
    for (const [profile, user, other] of rows) {
      const person = node(users, user);
      union(node(profiles, profile), person);
      if (other !== '') union(node(users, other), person);
      reach?.(seenProfiles, nextProfiles, str(profile));
      reach?.(seenUsers, nextUsers, str(user));
      if (other !== '') reach?.(seenUsers, nextUsers, str(other));
    }
  };
  const seenProfiles = new Set(exposed);
  const seenUsers = new Set<string>();
  let nextProfiles = [...seenProfiles];
  let nextUsers: string[] = [];
  // A project with no more links than the experiment has profiles: reading them all costs less than looking each
  // profile up, and gives its people the same. Counted no further than that, so this too grows with the experiment.
  const { values: [[few] = [0]] = [] } = yield valuesOp(
    'SELECT COUNT(*) FROM (SELECT 1 FROM person_links WHERE project = ? LIMIT ?) links', project, seenProfiles.size + 1,
  );
  if (num(few) <= seenProfiles.size) {
    join((yield valuesOp(LINKS, project)).values ?? []);
    nextProfiles = [];
  }
  while (nextProfiles.length > 0 || nextUsers.length > 0) {
    const rows = [
      ...yield* linksOf(BY_PROFILE, project, nextProfiles),
      ...yield* linksOf(BY_USER, project, nextUsers),
      ...yield* linksOf(BY_OTHER_USER, project, nextUsers),
    ];
    nextProfiles = [];
    nextUsers = [];
    join(rows, (seen, next, id) => {
      if (seen.has(id)) return;
      seen.add(id);
      next.push(id);
    });
  }
  return (profileId) => {
    const found = profiles.get(profileId);
    return found === undefined ? profileId : root(found);
  };
}
