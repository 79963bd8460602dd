import { ERROR_CODES, type ErrorCode } from './error-codes.js';

/**
 * An error the service answers with as `{error:{code, message}}`; the status comes from the code so a
 * code can never be sent with two statuses.
 * @example throw new ServiceError('invalid_event', 'batch[3].eventId: must be a UUID');
 */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;

  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.statusCode = ERROR_CODES[code].status;
  }
}

/** The body of every error answer. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string };
}

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { error: { code, message } };
}
