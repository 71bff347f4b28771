/**
 * Voice metering: one voice_sessions row per session, opened when the upstream is ready and closed
 * with its wall-clock length and the audio seconds each way. An organisation's usage is the sum.
 */
import { sql } from 'kysely';
import type { AppDeps, ServiceContext } from '../../context';
import { randomBase62, type SessionId } from '../../ids';
import { authorize } from '../access/roles';

export type VoiceMeter = { id: string; startedAt: number };

/** Token usage summed over a session's `response.done` events (what OpenAI bills). */
export type VoiceTokens = { input: number; output: number; cachedInput: number; audioInput: number; audioOutput: number };
export const noTokens = (): VoiceTokens => ({ input: 0, output: 0, cachedInput: 0, audioInput: 0, audioOutput: 0 });

export async function openVoiceMeter(ctx: ServiceContext, kbId: string, chatSessionId: SessionId): Promise<VoiceMeter> {
  const id = `vsn_${randomBase62(20)}`;
  const startedAt = Date.now();
  await ctx.db
    .insertInto('voice_sessions')
    .values({ id, org_id: ctx.org.id, kb_id: kbId as never, chat_session_id: chatSessionId, started_at: new Date(startedAt) })
    .execute();
  return { id, startedAt };
}

export async function closeVoiceMeter(
  deps: Pick<AppDeps, 'db'>,
  meter: VoiceMeter,
  usage: { audioInSeconds: number; audioOutSeconds: number; reason: string; tokens?: VoiceTokens },
): Promise<number> {
  const seconds = Math.max(0, (Date.now() - meter.startedAt) / 1000);
  await deps.db
    .updateTable('voice_sessions')
    .set({
      ended_at: new Date(),
      seconds,
      audio_in_seconds: usage.audioInSeconds,
      audio_out_seconds: usage.audioOutSeconds,
      end_reason: usage.reason,
      ...(usage.tokens
        ? {
            input_tokens: usage.tokens.input,
            output_tokens: usage.tokens.output,
            cached_input_tokens: usage.tokens.cachedInput,
            audio_input_tokens: usage.tokens.audioInput,
            audio_output_tokens: usage.tokens.audioOutput,
          }
        : {}),
    })
    .where('id', '=', meter.id)
    .execute();
  return seconds;
}

export type OrgUsageDto = { voice_seconds: number; voice_sessions: number; voice_input_tokens: number; voice_output_tokens: number };

export async function getOrgUsage(ctx: ServiceContext): Promise<{ usage: OrgUsageDto }> {
  authorize(ctx, 'content.read');
  const row = await ctx.db
    .selectFrom('voice_sessions')
    .select([
      sql<number>`coalesce(sum(seconds), 0)::float8`.as('seconds'),
      sql<number>`count(ended_at)::int`.as('sessions'),
      sql<number>`coalesce(sum(input_tokens), 0)::float8`.as('input_tokens'),
      sql<number>`coalesce(sum(output_tokens), 0)::float8`.as('output_tokens'),
    ])
    .where('org_id', '=', ctx.org.id)
    .executeTakeFirstOrThrow();
  return {
    usage: {
      voice_seconds: Math.round(Number(row.seconds) * 10) / 10,
      voice_sessions: Number(row.sessions),
      voice_input_tokens: Number(row.input_tokens),
      voice_output_tokens: Number(row.output_tokens),
    },
  };
}
