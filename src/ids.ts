/**
 * Prefixed, branded identifiers. The brand makes a DocumentId unusable where a KbId is expected,
 * and the prefix makes ids self-describing in logs and support tickets.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

export const ID_PREFIXES = {
  org: 'org',
  key: 'key',
  kb: 'kb',
  doc: 'doc',
  chunk: 'chk',
  sess: 'sess',
  msg: 'msg',
  adminSession: 'asess',
  batch: 'bat',
  evalCase: 'evc',
  evalRun: 'evr',
  user: 'usr',
  invitation: 'inv',
  annotation: 'ann',
} as const;

type Prefix = keyof typeof ID_PREFIXES;
export type Id<P extends Prefix> = string & { readonly __brand: P };
export type OrgId = Id<'org'>;
export type ApiKeyId = Id<'key'>;
export type KbId = Id<'kb'>;
export type DocumentId = Id<'doc'>;
export type ChunkId = Id<'chunk'>;
export type SessionId = Id<'sess'>;
export type MessageId = Id<'msg'>;
export type AdminSessionId = Id<'adminSession'>;
export type BatchId = Id<'batch'>;
export type EvalCaseId = Id<'evalCase'>;
export type EvalRunId = Id<'evalRun'>;
export type UserId = Id<'user'>;
export type InvitationId = Id<'invitation'>;
export type AnnotationId = Id<'annotation'>;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 from rejection sampling: no modulo bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function newId<P extends Prefix>(prefix: P): Id<P> {
  return `${ID_PREFIXES[prefix]}_${randomBase62(20)}` as Id<P>;
}

/** Zod schema for an id of one kind: validates the shape, brands the output. */
export function zId<P extends Prefix>(prefix: P) {
  const re = new RegExp(`^${ID_PREFIXES[prefix]}_[0-9A-Za-z]{1,64}$`);
  return z
    .string()
    .regex(re, { message: `must be an id starting with ${ID_PREFIXES[prefix]}_` })
    .transform((s) => s as Id<P>);
}

/** Cheap shape check used when an id arrives in a path: a malformed id is simply "not found". */
export function isIdOf<P extends Prefix>(prefix: P, value: string): value is Id<P> {
  return new RegExp(`^${ID_PREFIXES[prefix]}_[0-9A-Za-z]{1,64}$`).test(value);
}
