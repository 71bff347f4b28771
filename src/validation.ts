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

/**
 * The first string (value or key) PostgreSQL could not store faithfully: one with a NUL character
 * (text columns refuse it: that was a 500 on every transport) or a lone UTF-16 surrogate (silently
 * turned into U+FFFD on the way to the database). Iterative, so no nesting depth can overflow the stack.
 */
export function findUnstorableString(input: unknown): { field: string; problem: string } | null {
  const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
  const stack: Array<{ value: unknown; path: string[] }> = [{ value: input, path: [] }];
  const check = (s: string, path: string[]) =>
    s.includes('\u0000')
      ? { field: path.join('.'), problem: 'contains a NUL character' }
      : loneSurrogate.test(s)
        ? { field: path.join('.'), problem: 'is not valid Unicode (lone surrogate)' }
        : null;
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const bad = check(value, path);
      if (bad) return bad;
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push({ value: v, path: [...path, String(i)] }));
    } else if (value !== null && typeof value === 'object' && !(value instanceof Blob) && !ArrayBuffer.isView(value)) {
      for (const [k, v] of Object.entries(value)) {
        const bad = check(k, [...path, k.replace(/[\u0000\uD800-\uDFFF]/g, '?')]);
        if (bad) return bad;
        stack.push({ value: v, path: [...path, k] });
      }
    }
  }
  return null;
}

/**
 * For text we did not get from a caller (extracted from documents and pages): cleaned rather than
 * refused. NULs dropped, lone surrogates replaced by U+FFFD.
 */
export function storableText(s: string): string {
  return s.replace(/\u0000/g, '').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

export function assertStorableStrings(input: unknown): void {
  const bad = findUnstorableString(input);
  if (bad) {
    throw new AppError('invalid_input', bad.field ? `"${bad.field}" ${bad.problem}` : `The input ${bad.problem}`, { field: bad.field || undefined });
  }
}

export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  assertStorableStrings(input);
  const result = schema.safeParse(input);
  if (!result.success) throw zodErrorToAppError(result.error);
  return result.data;
}
