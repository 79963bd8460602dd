import { ERROR_CODES, type ErrorCode } from '../errors/error-codes.js';
import type { Access, ApiRoute, HttpMethod } from './api-route.js';

/** What any request may be answered, before or after its route: the HTTP parser's, the deadlines', our failures. */
const ANY_REQUEST: readonly ErrorCode[] = ['bad_request', 'request_timeout', 'headers_too_large', 'internal_error', 'storage_unavailable'];

/** A body is read for these methods (Fastify parses none for GET): its JSON, its type and its size can be refused. */
const WITH_BODY: readonly ErrorCode[] = ['invalid_json', 'unsupported_media_type', 'payload_too_large'];

/** Methods that change something: sent with the console's session cookie, they need its CSRF token. */
const UNSAFE: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What a caller that is not let in may be answered, by the route's access. */
function accessErrors(access: Access, method: HttpMethod, path: string): ErrorCode[] {
  if (access.kind === 'public') return [];
  if (access.kind === 'keyProject') {
    // The key names its project: no other project's key, no session, no role (keyAuth).
    const codes: ErrorCode[] = ['missing_credentials', 'invalid_credentials', 'project_not_found', 'rate_limited'];
    return access.keys.includes('writeKey') ? [...codes, 'origin_not_allowed'] : codes;
  }
  const codes: ErrorCode[] = ['missing_credentials', 'invalid_credentials', 'key_not_for_project'];
  const session = access.kind === 'organization' || access.keys.includes('adminKey');
  if (session) codes.push('session_expired');
  if (session && UNSAFE.has(method)) codes.push('csrf_failed');
  if (access.role !== undefined) codes.push('role_forbidden');
  if (access.kind === 'organization') return [...codes, 'admin_key_required'];
  codes.push('project_not_found', 'rate_limited');
  if (access.keys.length === 1 && access.keys[0] === 'adminKey') codes.push('admin_key_required');
  if (access.keys.includes('writeKey')) codes.push('origin_not_allowed');
  if (path.includes('/:sourceId')) codes.push('source_not_allowed');
  return codes;
}

/**
 * Every error code a route can answer: any request's, a body's (not for GET), a long path segment's (routes with
 * parameters), its access's, and its own checks'; without those it answers in its own shape (OwnErrors.replaces); in
 * the order of ERROR_CODES (by status).
 */
export function routeErrors(route: Pick<ApiRoute, 'method' | 'path' | 'access' | 'errors' | 'ownErrors'>): ErrorCode[] {
  const codes = new Set<ErrorCode>([
    ...ANY_REQUEST,
    ...(route.method === 'GET' ? [] : WITH_BODY),
    ...(route.path.includes('/:') ? ['path_too_long' as const] : []),
    ...accessErrors(route.access, route.method, route.path),
    ...route.errors,
  ]);
  for (const code of route.ownErrors?.replaces ?? []) codes.delete(code);
  return (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => codes.has(code));
}
