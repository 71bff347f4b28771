/**
 * Who may do what. Every service that reads or changes an organisation's data calls
 * `authorize(ctx, permission)` first, so GraphQL, tRPC, REST and the dashboard cannot disagree.
 * Roles are ordered (owner > admin > editor > viewer); a permission names the lowest role that
 * holds it. A `query` API key (and a widget visitor) holds only the `query` permission whatever
 * its role: it can search and chat, never read or change the organisation's content.
 */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import type { KeyScope, Role } from '../../../db/types';
import { AppError } from '../../errors';

export const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const satisfies readonly Role[];
export const ZRole = z.enum(ROLES);
export const KEY_SCOPES = ['full', 'query'] as const satisfies readonly KeyScope[];
export const ZKeyScope = z.enum(KEY_SCOPES);

const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2, owner: 3 };

/** Each permission, the lowest role that holds it, and how a refusal names it. */
export const PERMISSIONS = {
  /** Search, chat and the Sandbox: the only permission a `query` key or a widget visitor holds. */
  query: { role: 'viewer', what: 'search and chat' },
  /** KBs, documents, chunks, conversations, insights and test sets. */
  'content.read': { role: 'viewer', what: 'read this organisation’s knowledge bases' },
  'kb.create': { role: 'editor', what: 'create a knowledge base' },
  'kb.update': { role: 'editor', what: 'change a knowledge base' },
  'kb.delete': { role: 'admin', what: 'delete a knowledge base' },
  /** Upload, crawl, re-ingest, switch off and delete documents; curate chunks. */
  'document.write': { role: 'editor', what: 'change documents' },
  'annotation.write': { role: 'editor', what: 'give or change curated answers' },
  'eval.write': { role: 'editor', what: 'change or run test sets' },
  'conversation.delete': { role: 'editor', what: 'delete conversations' },
  /** Organisation settings: widget origins, voice. */
  'settings.update': { role: 'admin', what: 'change the organisation’s settings' },
  'key.read': { role: 'admin', what: 'see API keys' },
  'key.write': { role: 'admin', what: 'create or revoke API keys' },
  'member.read': { role: 'admin', what: 'see members and their sessions' },
  'member.write': { role: 'admin', what: 'invite, change or remove members' },
  /** Change an owner, or make someone an owner. */
  'owner.write': { role: 'owner', what: 'change an owner' },
  'audit.read': { role: 'admin', what: 'read the audit log' },
} as const satisfies Record<string, { role: Role; what: string }>;

export type Permission = keyof typeof PERMISSIONS;

export const roleAtLeast = (role: Role, min: Role): boolean => RANK[role] >= RANK[min];

export function can(ctx: Pick<ServiceContext, 'actor'>, permission: Permission): boolean {
  const { actor } = ctx;
  if (actor.scope === 'query' && permission !== 'query') return false;
  return roleAtLeast(actor.role, PERMISSIONS[permission].role);
}

/** Throws 403 unless the caller holds `permission`; the message says what was refused and why. */
export function authorize(ctx: Pick<ServiceContext, 'actor'>, permission: Permission): void {
  if (can(ctx, permission)) return;
  const { what } = PERMISSIONS[permission];
  if (ctx.actor.scope === 'query') {
    throw new AppError('forbidden', `This key has the query scope: it can search and chat, not ${what}`, { permission });
  }
  throw new AppError('forbidden', `Your role (${ctx.actor.role}) cannot ${what}; ask an owner or admin`, { permission });
}
