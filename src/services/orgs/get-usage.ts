/**
 * What an organisation uses against its plan: KBs and documents (the limits the services enforce),
 * questions asked (user turns of stored conversations: chat and widget; one-shot /search questions
 * are not stored) and voice minutes (the metered voice sessions, rounded up to whole minutes).
 */
import type { ServiceContext } from '../../context';
import { planLimits } from '../plans';
import { getOrgUsage } from '../voice/voice-usage';

export async function getUsage(ctx: ServiceContext) {
  const [kbs, docs, questions, { usage: voice }] = await Promise.all([
    ctx.db.selectFrom('knowledge_bases').select((eb) => eb.fn.countAll<string>().as('n')).where('org_id', '=', ctx.org.id).executeTakeFirstOrThrow(),
    ctx.db.selectFrom('documents').select((eb) => eb.fn.countAll<string>().as('n')).where('org_id', '=', ctx.org.id).executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom('chat_messages as m')
      .innerJoin('chat_sessions as s', 's.id', 'm.session_id')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('s.org_id', '=', ctx.org.id)
      .where('m.role', '=', 'user')
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
    voice_minutes: Math.ceil(voice.voice_seconds / 60),
    /** Realtime tokens of those sessions, from each response.done (what OpenAI bills). */
    voice_input_tokens: voice.voice_input_tokens,
    voice_output_tokens: voice.voice_output_tokens,
  };
}
