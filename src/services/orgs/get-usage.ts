/**
 * What an organisation uses against its plan: KBs and documents (the limits the services enforce),
 * questions asked (questions of conversations: chat API, widget text and voice, Sandbox; one-shot
 * /search questions are not stored), visitors' feedback, both from the daily aggregate so a deleted
 * KB's questions still count, and voice minutes (the metered voice sessions, rounded up).
 */
import type { ServiceContext } from '../../context';
import { planLimits } from '../plans';
import { getOrgUsage } from '../voice/voice-usage';
import { authorize } from '../access/roles';

export async function getUsage(ctx: ServiceContext) {
  authorize(ctx, 'content.read');
  const [kbs, docs, questions, { usage: voice }] = await Promise.all([
    ctx.db.selectFrom('knowledge_bases').select((eb) => eb.fn.countAll<string>().as('n')).where('org_id', '=', ctx.org.id).executeTakeFirstOrThrow(),
    ctx.db.selectFrom('documents').select((eb) => eb.fn.countAll<string>().as('n')).where('org_id', '=', ctx.org.id).executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom('usage_daily')
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum<string>('questions'), eb.lit(0)).as('n'),
        eb.fn.coalesce(eb.fn.sum<string>('feedback_up'), eb.lit(0)).as('up'),
        eb.fn.coalesce(eb.fn.sum<string>('feedback_down'), eb.lit(0)).as('down'),
      ])
      .where('org_id', '=', ctx.org.id)
      .executeTakeFirstOrThrow(),
    getOrgUsage(ctx),
  ]);
  const limits = planLimits(ctx.org.plan);
  return {
    plan: ctx.org.plan,
    knowledge_bases: Number(kbs.n),
    max_knowledge_bases: limits.maxKnowledgeBases,
    documents: Number(docs.n),
    max_documents: limits.maxDocuments,
    questions_asked: Number(questions.n),
    feedback_up: Number(questions.up),
    feedback_down: Number(questions.down),
    voice_minutes: Math.ceil(voice.voice_seconds / 60),
    /** Realtime tokens of those sessions, from each response.done (what OpenAI bills). */
    voice_input_tokens: voice.voice_input_tokens,
    voice_output_tokens: voice.voice_output_tokens,
  };
}
