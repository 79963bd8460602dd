import crypto from 'node:crypto';
import { keyDigest } from '../auth/verified-keys.js';
import { op, type SqlProgram } from '../storage/sql-program.js';

// OpenID Connect sign-ins under way: what the callback must check (state, nonce) and prove (the PKCE verifier), kept
// between the redirect to the provider and its answer. The browser holds only the flow's random id, in a cookie, so
// the answer is taken only in the browser that asked, once, within ten minutes, on whichever node it reaches.

export const FLOW_TTL_MS = 10 * 60_000;

export interface SignInFlow {
  org: string;
  project: string | null;
  state: string;
  nonce: string;
  verifier: string;
  createdAt: number;
}

/** Stores a flow; answers its id (for the browser's cookie). Flows older than the TTL are dropped on the way. */
export function* startFlow(flow: SignInFlow): SqlProgram<string> {
  const id = crypto.randomBytes(32).toString('base64url');
  yield op('DELETE FROM sign_in_flows WHERE created_at <= ?', flow.createdAt - FLOW_TTL_MS);
  yield op(
    'INSERT INTO sign_in_flows (id, org, project, state, nonce, verifier, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    keyDigest(id), flow.org, flow.project, flow.state, flow.nonce, flow.verifier, flow.createdAt,
  );
  return id;
}

/** Takes a flow by its id (once: it is deleted), or null when there is none. */
export function* takeFlow(id: string): SqlProgram<SignInFlow | null> {
  const { rows } = yield op('SELECT org, project, state, nonce, verifier, created_at FROM sign_in_flows WHERE id = ?', keyDigest(id));
  yield op('DELETE FROM sign_in_flows WHERE id = ?', keyDigest(id));
  const r = rows[0];
  return r ? {
    org: String(r.org), project: r.project == null ? null : String(r.project), state: String(r.state), nonce: String(r.nonce),
    verifier: String(r.verifier), createdAt: Number(r.created_at),
  } : null;
}
