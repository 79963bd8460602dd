/**
 * Bad Choose input, found before anything is stored. Each code maps to HTTP 400 in the route;
 * codes are stable and never reused (clients branch on them; docs/errors.md lists each).
 * - `names_or_groups_required`: the request has neither `names` nor `groups`.
 * - `session_id_required`: a requested experience is sticky by session and no `sessionId` came.
 */
export type ChooseErrorCode = 'names_or_groups_required' | 'session_id_required';

export class ChooseError extends Error {
  readonly code: ChooseErrorCode;

  constructor(code: ChooseErrorCode, message: string) {
    super(message);
    this.name = 'ChooseError';
    this.code = code;
  }
}
