/**
 * An organisation's concurrent voice sessions, counted in the database (voice_slots) so the plan's
 * limit holds across every web process, not per process. Each open session holds one lease row;
 * the process renews its leases every VOICE_SLOT_RENEW_MS, and a lease not renewed for
 * VOICE_SLOT_TTL_MS stops counting: a web process that dies (SIGKILL, a lost machine) frees its
 * organisations' slots within that bound instead of holding them forever.
 */
import { sql } from 'kysely';
import type { AppDeps } from '../../context';
import { randomBase62, type OrgId } from '../../ids';

export const VOICE_SLOT_RENEW_MS = 5_000;
export const VOICE_SLOT_TTL_MS = 30_000;

export type VoiceSlot = {
  id: string;
  /** Frees the slot; safe to call twice. A failed delete is logged and left to expire. */
  release(): Promise<void>;
};

export type VoiceSlots = {
  /** One of the organisation's `max` slots, or null when all are in use. */
  tryAcquire(orgId: OrgId, max: number): Promise<VoiceSlot | null>;
  /** Leases this process holds. */
  held(): number;
  /** Stops renewing (after the sessions have ended and released theirs). */
  close(): void;
};

export function createVoiceSlots(
  deps: Pick<AppDeps, 'db' | 'logger'>,
  timing: { renewMs?: number; ttlMs?: number } = {},
): VoiceSlots {
  const renewMs = timing.renewMs ?? VOICE_SLOT_RENEW_MS;
  const ttl = `${timing.ttlMs ?? VOICE_SLOT_TTL_MS} milliseconds`;
  // The database's clock, not ours: processes on several machines compare expiries.
  const expiry = () => sql<Date>`now() + ${ttl}::interval`;
  const held = new Set<string>();

  const renew = async () => {
    if (held.size === 0) return;
    try {
      await deps.db.updateTable('voice_slots').set({ expires_at: expiry() }).where('id', 'in', [...held]).execute();
    } catch (err) {
      deps.logger.warn({ err, leases: held.size }, 'voice slots could not be renewed');
    }
  };
  const timer = setInterval(() => void renew(), renewMs);
  timer.unref();

  return {
    async tryAcquire(orgId, max) {
      if (max <= 0) return null;
      const id = `vsl_${randomBase62(20)}`;
      const acquired = await deps.db.transaction().execute(async (trx) => {
        // Locking the organisation's row serialises its acquirers across processes, so two cannot
        // both take the last slot. NO KEY UPDATE, so inserts that reference the row don't wait.
        await trx.selectFrom('organizations').select('id').where('id', '=', orgId).forNoKeyUpdate().execute();
        await trx.deleteFrom('voice_slots').where('org_id', '=', orgId).where('expires_at', '<=', sql<Date>`now()`).execute();
        const { open } = await trx
          .selectFrom('voice_slots')
          .select(sql<number>`count(*)::int`.as('open'))
          .where('org_id', '=', orgId)
          .executeTakeFirstOrThrow();
        if (open >= max) return false;
        await trx.insertInto('voice_slots').values({ id, org_id: orgId, expires_at: expiry() }).execute();
        return true;
      });
      if (!acquired) return null;
      held.add(id);
      let released = false;
      return {
        id,
        async release() {
          if (released) return;
          released = true;
          held.delete(id);
          try {
            await deps.db.deleteFrom('voice_slots').where('id', '=', id).execute();
          } catch (err) {
            deps.logger.warn({ err, lease: id }, 'voice slot could not be released; it expires on its own');
          }
        },
      };
    },
    held: () => held.size,
    close: () => clearInterval(timer),
  };
}
