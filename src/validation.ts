/**
 * Input validation shared by every transport: services parse their own input with zod, and the REST
 * layer's request validation reuses the same error translation, so a bad field reads the same
 * everywhere: 400 invalid_input naming the field.
 */
import type { z } from 'zod';
import { AppError } from './errors';

type Issue = z.core.$ZodIssue;

export function describeIssue(issue: Issue, prefix: string[] = []): { field: string; message: string } {
  const path = [...prefix, ...issue.path.map(String)];
  if (issue.code === 'unrecognized_keys') {
    const field = [...path, issue.keys[0]].join('.');
    return { field, message: `Unknown field "${field}"` };
  }
  const field = path.join('.');
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) {
    return { field, message: `"${field}" is required` };
  }
  return { field, message: field ? `"${field}": ${issue.message}` : issue.message };
}

export function zodErrorToAppError(error: z.ZodError, prefix: string[] = []): AppError {
  const first = describeIssue(error.issues[0]!, prefix);
  return new AppError('invalid_input', first.message, { field: first.field || undefined });
}

export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw zodErrorToAppError(result.error);
  return result.data;
}
