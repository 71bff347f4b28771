/**
 * Sends a regression to the KB's webhook (the `evals__webhook` job): POST of a JSON body, signed
 * in `x-groundwork-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the KB's
 * webhook secret>`, so the receiver can check who sent it and refuse replays. Any answer but 2xx
 * throws, and graphile-worker retries with exponential backoff; the last attempt's failure is
 * recorded on the run (`regression.webhook: failed`). The URL is checked like a crawl's (no private
 * addresses unless CRAWL_ALLOW_PRIVATE, also at connect time), and redirects are not followed.
 */
import { createHmac } from 'node:crypto';
import type { AppDeps } from '../../context';
import type { EvalRunId } from '../../ids';
import { guardedPost, type UrlGuardOptions } from '../../ingest/crawl';
import { toEvalRunDto } from './eval-dto';

export const SIGNATURE_HEADER = 'x-groundwork-signature';
const TIMEOUT_MS = 10_000;

export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

async function setDelivery(deps: Pick<AppDeps, 'db'>, runId: EvalRunId, webhook: 'delivered' | 'failed') {
  const run = await deps.db.selectFrom('eval_runs').select('regression').where('id', '=', runId).executeTakeFirst();
  if (!run?.regression) return;
  await deps.db.updateTable('eval_runs').set({ regression: JSON.stringify({ ...run.regression, webhook }) }).where('id', '=', runId).execute();
}

export async function deliverEvalWebhook(
  deps: Pick<AppDeps, 'db' | 'config' | 'logger'>,
  runId: EvalRunId,
  attempt: { number: number; max: number },
  /** Test seam for DNS (UrlGuardOptions.resolve); production passes none. */
  guard: Pick<UrlGuardOptions, 'resolve'> = {},
): Promise<'delivered' | 'skipped'> {
  const run = await deps.db.selectFrom('eval_runs').selectAll().where('id', '=', runId).executeTakeFirst();
  const kb = run && (await deps.db.selectFrom('knowledge_bases').select(['id', 'name', 'eval_settings']).where('id', '=', run.kb_id).executeTakeFirst());
  const url = kb?.eval_settings?.webhook_url;
  const secret = kb?.eval_settings?.webhook_secret;
  if (!run?.regression?.flagged || !kb || !url || !secret) return 'skipped';
  const body = JSON.stringify({ type: 'eval.regression', kb: { id: kb.id, name: kb.name }, run: toEvalRunDto(run) });
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const status = await guardedPost(url, {
      ...guard,
      allowPrivate: deps.config.crawlAllowPrivate,
      headers: { 'content-type': 'application/json', 'user-agent': 'Groundwork-Webhook', [SIGNATURE_HEADER]: signWebhook(secret, timestamp, body) },
      body,
      timeoutMs: TIMEOUT_MS,
    });
    if (status < 200 || status >= 300) throw new Error(`the webhook answered HTTP ${status}`);
  } catch (err) {
    deps.logger.warn({ err, runId, attempt: attempt.number }, 'eval webhook delivery failed');
    if (attempt.number >= attempt.max) await setDelivery(deps, runId, 'failed');
    throw err;
  }
  await setDelivery(deps, runId, 'delivered');
  return 'delivered';
}
