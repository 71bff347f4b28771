/**
 * An error crossing a thread boundary: structured clone keeps an Error's message but not its class, so a
 * PermanentIngestError (the document's own fault, never retried) is sent as its code and rebuilt.
 */
import { isPermanentIngestError, PermanentIngestError, type PermanentIngestCode } from './errors';

export type ThreadFailure = { name: string; message: string; code?: PermanentIngestCode };

export function toThreadFailure(err: unknown): ThreadFailure {
  const e = err instanceof Error ? err : new Error(String(err));
  return { name: e.name, message: e.message, ...(isPermanentIngestError(e) ? { code: e.code } : {}) };
}

export function fromThreadFailure(failed: ThreadFailure): Error {
  if (failed.code) return new PermanentIngestError(failed.code, failed.message);
  return Object.assign(new Error(failed.message), { name: failed.name });
}
