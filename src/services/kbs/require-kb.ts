import type { ServiceContext } from '../../context';
import { notFound } from '../../errors';
import { isIdOf, type KbId } from '../../ids';

/**
 * Loads a KB of the caller's organisation. Another organisation's KB is "not found", exactly like
 * one that never existed, so ids cannot be probed across tenants.
 */
export async function requireKb(ctx: ServiceContext, kbId: string) {
  if (!isIdOf('kb', kbId)) throw notFound('Knowledge base');
  const kb = await ctx.db
    .selectFrom('knowledge_bases')
    .selectAll()
    .where('id', '=', kbId as KbId)
    .where('org_id', '=', ctx.org.id)
    .executeTakeFirst();
  if (!kb) throw notFound('Knowledge base');
  return kb;
}
