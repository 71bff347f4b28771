/**
 * Whether the realtime provider refused this server's API key. A 401/403 at the upstream upgrade is
 * not temporary (a revoked key, a project without Realtime access, a region refused): it is recorded
 * here by the key's fingerprint, so voice stops being offered, and the dashboard's Settings shows
 * why, until the server runs with another key. Shared through the database by every web process.
 */
import { createHash } from 'node:crypto';
import type { AppDeps } from '../../context';

export type ProviderRefusal = { status: number; code: string | null; message: string };

/** Refusals are re-read at most this often per process (the widget session endpoint is hot). */
const CACHE_MS = 2_000;
const cache = new WeakMap<object, { key: string; at: number; reason: string | null }>();

export function keyFingerprint(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 32);
}

export function refusalReason(r: ProviderRefusal): string {
  const what = r.status === 401 ? 'refused the API key (401' : 'refused this account (403';
  const detail = [r.code, r.message].filter(Boolean).join(': ').slice(0, 200);
  return `The realtime voice provider ${what}${detail ? `, ${detail}` : ''}). Voice is off until the server runs with a working OPENAI_API_KEY (or OPENAI_REALTIME_API_KEY).`;
}

export async function recordProviderRefusal(deps: Pick<AppDeps, 'db' | 'config'>, refusal: ProviderRefusal): Promise<void> {
  if (!deps.config.realtime) return;
  const key_fingerprint = keyFingerprint(deps.config.realtime.apiKey);
  await deps.db
    .insertInto('voice_provider_refusals')
    .values({ key_fingerprint, status: refusal.status, code: refusal.code, message: refusal.message.slice(0, 500) })
    .onConflict((oc) => oc.column('key_fingerprint').doUpdateSet({ status: refusal.status, code: refusal.code, message: refusal.message.slice(0, 500), refused_at: new Date() }))
    .execute();
  cache.delete(deps.db);
}

/** Why the configured key cannot be used (for voiceAvailability), or null. */
export async function providerRefusalReason(deps: Pick<AppDeps, 'db' | 'config'>): Promise<string | null> {
  if (!deps.config.realtime) return null;
  const key = keyFingerprint(deps.config.realtime.apiKey);
  const hit = cache.get(deps.db);
  if (hit && hit.key === key && performance.now() - hit.at < CACHE_MS) return hit.reason;
  const row = await deps.db.selectFrom('voice_provider_refusals').selectAll().where('key_fingerprint', '=', key).executeTakeFirst();
  const reason = row ? refusalReason(row) : null;
  cache.set(deps.db, { key, at: performance.now(), reason });
  return reason;
}
