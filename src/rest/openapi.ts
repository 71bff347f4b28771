/**
 * Shared pieces of the REST layer's OpenAPI description: the error body and the error responses
 * each route can return. Routes list their errors here so the published document is complete.
 */
import { z } from '@hono/zod-openapi';
import { ERROR_CODES, type ErrorCode } from '../errors';

export const ZErrorBody = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
      field: z.string().optional(),
      request_id: z.string().optional(),
    }),
  })
  .openapi('Error');

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (`invalid_input`); `field` names the offending field',
  401: 'Missing, invalid or revoked API key (`unauthorized`)',
  403: 'Plan limit reached (`plan_limit_exceeded`) or origin not allowed (`forbidden`)',
  404: 'Unknown id, or an id of another organisation (`not_found`)',
  413: 'Body too large (`payload_too_large`)',
  415: 'Unsupported content type (`unsupported_media_type`)',
  429: 'Rate limited (`rate_limited`); see the Retry-After header',
  500: 'Unexpected error (`internal_error`) with a request id',
  503: 'The language model or another upstream service is unavailable (`unavailable`)',
};

export function errorResponses<S extends number>(...statuses: S[]) {
  const all = [...new Set([...statuses, 401, 429, 500] as number[])];
  return Object.fromEntries(
    all.map((s) => [s, { description: DESCRIPTIONS[s] ?? 'Error', content: { 'application/json': { schema: ZErrorBody } } }]),
  ) as Record<S | 401 | 429 | 500, { description: string; content: { 'application/json': { schema: typeof ZErrorBody } } }>;
}

export const security = [{ ApiKey: [] }];
