/**
 * One error type for the whole service. Services throw AppError; each transport maps it through
 * ERROR_CODES, so REST, GraphQL and tRPC can never disagree about what went wrong.
 */
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';

export const ERROR_CODES = {
  invalid_input: { http: 400, trpc: 'BAD_REQUEST', graphql: 'BAD_USER_INPUT' },
  unauthorized: { http: 401, trpc: 'UNAUTHORIZED', graphql: 'UNAUTHENTICATED' },
  forbidden: { http: 403, trpc: 'FORBIDDEN', graphql: 'FORBIDDEN' },
  plan_limit_exceeded: { http: 403, trpc: 'FORBIDDEN', graphql: 'PLAN_LIMIT_EXCEEDED' },
  not_found: { http: 404, trpc: 'NOT_FOUND', graphql: 'NOT_FOUND' },
  conflict: { http: 409, trpc: 'CONFLICT', graphql: 'CONFLICT' },
  payload_too_large: { http: 413, trpc: 'PAYLOAD_TOO_LARGE', graphql: 'PAYLOAD_TOO_LARGE' },
  unsupported_media_type: { http: 415, trpc: 'UNSUPPORTED_MEDIA_TYPE', graphql: 'UNSUPPORTED_MEDIA_TYPE' },
  rate_limited: { http: 429, trpc: 'TOO_MANY_REQUESTS', graphql: 'RATE_LIMITED' },
  /** The client went away (closed the connection) before its read finished; it never sees this. */
  cancelled: { http: 499, trpc: 'CLIENT_CLOSED_REQUEST', graphql: 'CANCELLED' },
  internal_error: { http: 500, trpc: 'INTERNAL_SERVER_ERROR', graphql: 'INTERNAL_SERVER_ERROR' },
  unavailable: { http: 503, trpc: 'INTERNAL_SERVER_ERROR', graphql: 'SERVICE_UNAVAILABLE' },
} as const satisfies Record<string, { http: number; trpc: TRPC_ERROR_CODE_KEY; graphql: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export type ErrorDetails = {
  /** Dotted path of the offending input field, when there is one. */
  field?: string;
  /** Seconds until a rate-limited caller may retry. */
  retryAfter?: number;
  requestId?: string;
  [key: string]: unknown;
};

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_CODES[this.code].http;
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);

/**
 * The public body every REST error uses: { error: { code, message, field?, request_id?, details? } }.
 * `details` carries what the message points to (each file's reason of a refused bulk upload); the
 * fields above and retryAfter (the Retry-After header) are not repeated in it.
 */
export function errorBody(err: AppError) {
  const { field, requestId } = err.details;
  const details = publicDetails(err);
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(field ? { field } : {}),
      ...(requestId ? { request_id: requestId } : {}),
      ...(details ? { details } : {}),
    },
  };
}

/** The details a client reads beyond field, request id and retry delay; null when there are none. */
export function publicDetails(err: AppError): Record<string, unknown> | null {
  if (err.code === 'internal_error') return null;
  const { field: _f, requestId: _r, retryAfter: _a, ...rest } = err.details;
  return Object.keys(rest).length > 0 ? rest : null;
}

const PG_UNIQUE_VIOLATION = '23505';
const PG_FOREIGN_KEY_VIOLATION = '23503';
const PG_INVALID_TEXT = '22P02';
// A NUL character (or other text the database encoding cannot hold) that got past validation.
const PG_UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/**
 * Normalises anything thrown into an AppError. Postgres constraint errors are translated here and
 * only here; anything unknown becomes an opaque internal_error (the original is kept as `cause` for logs).
 */
export function toAppError(err: unknown, requestId?: string): AppError {
  if (err instanceof AppError) {
    if (requestId && err.code === 'internal_error') err.details.requestId ??= requestId;
    return err;
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (code === PG_UNIQUE_VIOLATION) return new AppError('conflict', 'A resource with these values already exists');
  if (code === PG_FOREIGN_KEY_VIOLATION) return new AppError('not_found', 'A referenced resource does not exist');
  if (code === PG_INVALID_TEXT) return new AppError('invalid_input', 'A value has an invalid format');
  if (typeof code === 'string' && PG_UNSTORABLE_TEXT.has(code)) return new AppError('invalid_input', 'A value contains characters that cannot be stored (e.g. NUL)');
  if (isDatabaseUnavailable(err)) {
    return new AppError('unavailable', 'The database is unavailable; retry shortly', { retryAfter: 2, ...(requestId ? { requestId } : {}) });
  }
  const wrapped = new AppError('internal_error', 'Internal server error', requestId ? { requestId } : {});
  (wrapped as { cause?: unknown }).cause = err;
  return wrapped;
}

/**
 * The database restarting, failing over or out of reach: a 503 the client may retry, not a 500.
 * Class 08 (connection exception), 57P01-57P03 (shutdown, crash shutdown, cannot connect now),
 * and the pg driver's own connection errors, which carry no SQLSTATE.
 */
function isDatabaseUnavailable(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (/^08/.test(code) || ['57P01', '57P02', '57P03', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(code))) return true;
  return typeof message === 'string' && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
}
