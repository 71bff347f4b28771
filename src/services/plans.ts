/**
 * Plans and their limits, in one place. Limits are checked in services (never in transports) so
 * every API obeys them; checks that count rows run under a per-organisation row lock.
 */
import type { PlanName } from '../../db/types';

export const PLAN_NAMES = ['free', 'starter', 'pro'] as const satisfies readonly PlanName[];

export type PlanLimits = {
  maxKnowledgeBases: number;
  /** Documents per organisation, across all its KBs. */
  maxDocuments: number;
  /**
   * Chunks stored per organisation, across all its documents: what embedding and the vector index
   * cost. Checked after chunking and before embedding, so a refused file costs no embedding time.
   */
  maxChunks: number;
  voice: boolean;
  /** Voice sessions open at once per organisation (per web process: the gateway counts its own). */
  maxVoiceSessions: number;
};

export const PLANS: Record<PlanName, PlanLimits> = {
  free: { maxKnowledgeBases: 1, maxDocuments: 50, maxChunks: 5_000, voice: false, maxVoiceSessions: 0 },
  starter: { maxKnowledgeBases: 5, maxDocuments: 2_000, maxChunks: 200_000, voice: true, maxVoiceSessions: 5 },
  pro: { maxKnowledgeBases: 100, maxDocuments: 100_000, maxChunks: 2_000_000, voice: true, maxVoiceSessions: 50 },
};

export function planLimits(plan: PlanName): PlanLimits {
  return PLANS[plan];
}

/** Chunks one document may have on any plan: about 20 MB of prose; more is a corpus, not a document. */
export const MAX_CHUNKS_PER_DOCUMENT = 20_000;
