/**
 * Creates an organisation and its first API key in one transaction: an org is never left without
 * a way in. The key's secret is in the result once and is not recoverable afterwards.
 */
import { z } from 'zod';
import type { AppDeps } from '../../context';
import { AppError } from '../../errors';
import { newId } from '../../ids';
import { createApiKey } from '../api-keys/create-api-key';
import { SYSTEM_ACTOR } from '../access/actor';
import { parseInput } from '../../validation';
import { PLAN_NAMES } from '../plans';
import { toOrgDto, type OrgDto } from './org-dto';

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$/;

export const ZCreateOrgInput = z
  .object({
    name: z.string().trim().min(1).max(200),
    plan: z.enum(PLAN_NAMES).default('free'),
    slug: z.string().regex(SLUG, 'lowercase letters, digits and dashes, 1-48 characters').optional(),
  })
  .strict();
export type CreateOrgInput = z.input<typeof ZCreateOrgInput>;

export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return slug || 'org';
}

export async function createOrg(deps: Pick<AppDeps, 'db'>, rawInput: CreateOrgInput): Promise<{ org: OrgDto; api_key: string }> {
  const input = parseInput(ZCreateOrgInput, rawInput);
  const slug = input.slug ?? slugify(input.name);
  return deps.db.transaction().execute(async (trx) => {
    const taken = await trx.selectFrom('organizations').select('id').where('slug', '=', slug).executeTakeFirst();
    if (taken) throw new AppError('conflict', `An organisation with slug "${slug}" already exists`, { field: 'slug' });
    const org = await trx
      .insertInto('organizations')
      .values({ id: newId('org'), slug, name: input.name, plan: input.plan, settings: JSON.stringify({}) })
      .returningAll()
      .executeTakeFirstOrThrow();
    const key = await createApiKey({ db: trx, org, actor: SYSTEM_ACTOR }, { name: 'default' });
    return { org: toOrgDto(org), api_key: key.api_key };
  });
}
