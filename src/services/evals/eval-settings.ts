/**
 * A KB's eval settings: the top_k its runs ask with (default 5), and the webhook a regression is
 * sent to. Setting a webhook URL creates its signing secret (HMAC-SHA256, see deliver-eval-webhook.ts),
 * kept until the URL is cleared. Changing top_k changes what retrieval returns, so when the KB has
 * a test set a run starts (trigger `settings`).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import type { KnowledgeBase } from '../../../db/types';
import { startAutomaticEvalRun } from './start-eval-run';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export const DEFAULT_EVAL_TOP_K = 5;

export const ZEvalSettings = z.object({
  kb_id: z.string(),
  top_k: z.number().int(),
  webhook_url: z.string().nullable(),
  webhook_secret: z.string().nullable().describe('Signs each webhook request (x-groundwork-signature); created with the URL'),
});
export type EvalSettingsDto = z.infer<typeof ZEvalSettings>;

export const ZUpdateEvalSettingsInput = z
  .object({
    kb_id: z.string().min(1),
    top_k: z.number().int().min(1).max(50).optional(),
    webhook_url: z
      .string()
      .trim()
      .max(2000)
      .url()
      .regex(/^https?:\/\//i, 'must be an http:// or https:// URL')
      .nullable()
      .optional(),
  })
  .strict();
export type UpdateEvalSettingsInput = z.input<typeof ZUpdateEvalSettingsInput>;

export function evalSettingsOf(kb: Pick<KnowledgeBase, 'id' | 'eval_settings'>): EvalSettingsDto {
  const s = kb.eval_settings ?? {};
  return { kb_id: kb.id, top_k: s.top_k ?? DEFAULT_EVAL_TOP_K, webhook_url: s.webhook_url ?? null, webhook_secret: s.webhook_url ? (s.webhook_secret ?? null) : null };
}

export async function getEvalSettings(ctx: ServiceContext, raw: { kb_id: string }): Promise<{ settings: EvalSettingsDto }> {
  authorize(ctx, 'content.read');
  const { kb_id } = parseInput(ZUpdateEvalSettingsInput.pick({ kb_id: true }), raw);
  return { settings: evalSettingsOf(await requireKb(ctx, kb_id)) };
}

export async function updateEvalSettings(ctx: ServiceContext, raw: UpdateEvalSettingsInput): Promise<{ settings: EvalSettingsDto }> {
  authorize(ctx, 'eval.write');
  const { kb_id, ...changes } = parseInput(ZUpdateEvalSettingsInput, raw);
  const kb = await requireKb(ctx, kb_id);
  const before = evalSettingsOf(kb);
  const stored = { ...(kb.eval_settings ?? {}) };
  if (changes.top_k !== undefined) stored.top_k = changes.top_k;
  if (changes.webhook_url !== undefined) {
    stored.webhook_url = changes.webhook_url;
    stored.webhook_secret = changes.webhook_url ? (stored.webhook_secret ?? `whsec_${randomBytes(24).toString('base64url')}`) : null;
  }
  const row = await ctx.db
    .updateTable('knowledge_bases')
    .set({ eval_settings: JSON.stringify(stored), updated_at: new Date() })
    .where('id', '=', kb.id)
    .where('org_id', '=', ctx.org.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const after = evalSettingsOf(row);
  await recordAudit(ctx, { action: 'eval_settings.update', targetType: 'knowledge_base', targetId: kb.id, changes: { before: { top_k: before.top_k, webhook_url: before.webhook_url }, after: changes } });
  if (after.top_k !== before.top_k) await startAutomaticEvalRun(ctx, kb.id, 'settings');
  return { settings: after };
}
