import { getUsage } from '../src/services/orgs/get-usage';
import { builder } from './builder';

builder.queryFields((t) => ({
  usage: t.field({
    type: builder.objectRef<Awaited<ReturnType<typeof getUsage>>>('Usage').implement({
      description: "The organisation's use against its plan's limits",
      fields: (f) => ({
        knowledgeBases: f.exposeInt('knowledge_bases'),
        maxKnowledgeBases: f.exposeInt('max_knowledge_bases'),
        documents: f.exposeInt('documents'),
        maxDocuments: f.exposeInt('max_documents'),
        questionsAsked: f.exposeInt('questions_asked', { description: 'Questions of conversations (chat, widget, voice, Sandbox), deleted KBs included' }),
        feedbackUp: f.exposeInt('feedback_up', { description: 'Answers visitors rated helpful' }),
        feedbackDown: f.exposeInt('feedback_down', { description: 'Answers visitors rated unhelpful' }),
        voiceMinutes: f.exposeInt('voice_minutes'),
        voiceInputTokens: f.exposeFloat('voice_input_tokens', { description: 'Realtime input tokens of ended voice sessions (from response.done usage)' }),
        voiceOutputTokens: f.exposeFloat('voice_output_tokens', { description: 'Realtime output tokens of ended voice sessions (from response.done usage)' }),
      }),
    }),
    resolve: async (_r, _a, ctx) => getUsage(await ctx.auth()),
  }),
}));
