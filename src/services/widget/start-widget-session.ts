/**
 * POST /api/widget/session: the only door a keyless widget has. Resolves the organisation by slug and
 * the KB by id within it, refuses unless the requesting Origin is on the organisation's allowlist
 * (empty list: any) and the KB has the widget enabled, and issues a short-lived token bound to org,
 * KB and Origin. Checks run origin-first, so a site that is not allowed learns nothing about KBs;
 * an unknown organisation and an unknown (or another organisation's) KB give the same 404.
 */
import { z } from 'zod';
import type { KnowledgeBase, Organization } from '../../../db/types';
import type { AppDeps } from '../../context';
import { AppError } from '../../errors';
import { isIdOf, type KbId, type OrgId } from '../../ids';
import { parseInput } from '../../validation';
import { isOriginAllowed, normalizeOrigin } from '../orgs/org-settings';
import { voiceAvailability } from '../voice/voice-availability';
import { providerRefusalReason } from '../voice/voice-provider-status';
import { signWidgetToken, WIDGET_TOKEN_TTL_SECONDS, widgetTokenKey } from './widget-token';

export const ZWidgetSessionInput = z
  .object({
    org: z.string().min(1).max(100),
    kb: z.string().min(1).max(100),
  })
  .strict();
export type WidgetSessionInput = z.input<typeof ZWidgetSessionInput>;

export type WidgetSessionDto = {
  token: string;
  expires_at: string;
  /** Seconds until expires_at: clients renew by their own clock, whatever its skew. */
  expires_in: number;
  kb: { id: string; name: string };
  /** reason: why not (null when available), for the widget to log. */
  voice: { available: boolean; reason: string | null };
};

export const assistantNotFound = () =>
  new AppError('not_found', 'This assistant was not found: check the data-org and data-kb attributes of the widget script tag');

/**
 * The browser's Origin header, normalised. `null` (sandboxed frames, file: pages) is kept as the
 * literal "null" so it can still be bound to a token when every origin is allowed.
 */
export function requestOrigin(header: string | null | undefined): string {
  if (!header) {
    throw new AppError('forbidden', 'The widget endpoints answer browsers only: the request has no Origin header');
  }
  if (header === 'null') return 'null';
  const origin = normalizeOrigin(header);
  if (!origin) throw new AppError('forbidden', 'The request has an invalid Origin header');
  return origin;
}

export function assertOriginAllowed(org: Pick<Organization, 'settings'>, origin: string) {
  if (!isOriginAllowed(org.settings ?? {}, origin)) {
    throw new AppError(
      'forbidden',
      `This website (${origin}) is not allowed to use this assistant. The site owner can add it to the allowed origins in the settings.`,
    );
  }
}

export function assertWidgetEnabled(kb: Pick<KnowledgeBase, 'widget_enabled'>) {
  if (!kb.widget_enabled) throw new AppError('forbidden', 'The chat assistant is turned off for this knowledge base');
}

export async function loadWidgetKb(deps: Pick<AppDeps, 'db'>, orgId: OrgId, kbId: string): Promise<KnowledgeBase> {
  if (!isIdOf('kb', kbId)) throw assistantNotFound();
  const kb = await deps.db
    .selectFrom('knowledge_bases')
    .selectAll()
    .where('id', '=', kbId as KbId)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  if (!kb) throw assistantNotFound();
  return kb;
}

export async function startWidgetSession(
  deps: AppDeps,
  rawInput: WidgetSessionInput,
  originHeader: string | null | undefined,
): Promise<WidgetSessionDto> {
  const input = parseInput(ZWidgetSessionInput, rawInput);
  const origin = requestOrigin(originHeader);
  const org = await deps.db.selectFrom('organizations').selectAll().where('slug', '=', input.org).executeTakeFirst();
  if (!org) throw assistantNotFound();
  assertOriginAllowed(org, origin);
  const kb = await loadWidgetKb(deps, org.id, input.kb);
  assertWidgetEnabled(kb);

  const { token, claims } = signWidgetToken(await widgetTokenKey(deps), { org: org.id, kb: kb.id, origin });
  deps.logger.debug({ orgId: org.id, kbId: kb.id, origin }, 'widget session issued');
  return {
    token,
    expires_at: new Date(claims.exp * 1000).toISOString(),
    expires_in: WIDGET_TOKEN_TTL_SECONDS,
    kb: { id: kb.id, name: kb.name },
    voice: (({ available, reason }) => ({ available, reason }))(voiceAvailability(org, deps.config, await providerRefusalReason(deps))),
  };
}
