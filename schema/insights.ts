/** What visitors asked that the KB could not answer, and activity over time (the dashboard's charts). */
import { getActivity } from '../src/services/insights/activity';
import { listUnansweredQuestions } from '../src/services/insights/unanswered-questions';
import { builder } from './builder';

type Unanswered = Awaited<ReturnType<typeof listUnansweredQuestions>>;
type Group = Unanswered['groups'][number];

const UnansweredQuestionRef = builder.objectRef<Group['questions'][number]>('UnansweredQuestion').implement({
  fields: (t) => ({
    messageId: t.exposeID('message_id'),
    sessionId: t.exposeID('session_id', { description: 'The conversation it was asked in' }),
    text: t.exposeString('text'),
    askedAt: t.field({ type: 'DateTime', resolve: (q) => q.asked_at }),
    refused: t.exposeBoolean('refused', { description: 'true: refused; false: answered with low support or rated not helpful' }),
    support: t.exposeFloat('support', { nullable: true }),
    ratedDown: t.exposeBoolean('rated_down', { description: 'A visitor rated its answer not helpful' }),
  }),
});

const UnansweredGroupRef = builder.objectRef<Group>('UnansweredQuestionGroup').implement({
  description: 'Questions of one meaning (by the KB\'s embeddings) that were refused, weakly supported or rated not helpful, and not fixed since',
  fields: (t) => ({
    question: t.exposeString('question', { description: 'The newest wording' }),
    count: t.exposeInt('count'),
    refusedCount: t.exposeInt('refused_count'),
    ratedDownCount: t.exposeInt('rated_down_count'),
    lastAskedAt: t.field({ type: 'DateTime', resolve: (g) => g.last_asked_at }),
    firstAskedAt: t.field({ type: 'DateTime', resolve: (g) => g.first_asked_at }),
    questions: t.field({ type: [UnansweredQuestionRef], resolve: (g) => g.questions }),
  }),
});

const UnansweredRef = builder.objectRef<Unanswered>('UnansweredQuestions').implement({
  fields: (t) => ({
    scanned: t.exposeInt('scanned', { description: 'Questions considered (the newest 1,000 in the range at most)' }),
    groups: t.field({ type: [UnansweredGroupRef], resolve: (u) => u.groups }),
  }),
});

type Activity = Awaited<ReturnType<typeof getActivity>>;
type Counts = Activity['total'];
// Shared by three object types of the same counts (each exposes the same keys of Counts).
const countFields = (t: any) => ({
  questions: t.exposeInt('questions'),
  answered: t.exposeInt('answered'),
  refused: t.exposeInt('refused'),
  feedbackUp: t.exposeInt('feedback_up'),
  feedbackDown: t.exposeInt('feedback_down'),
});

const ActivityCountsRef = builder.objectRef<Counts>('ActivityCounts').implement({ fields: (t) => countFields(t) });
const ActivityDayRef = builder.objectRef<Activity['days'][number]>('ActivityDay').implement({
  fields: (t) => ({ day: t.exposeString('day', { description: 'UTC day, YYYY-MM-DD' }), ...countFields(t) }),
});
const ActivityKbRef = builder.objectRef<Activity['knowledge_bases'][number]>('ActivityKnowledgeBase').implement({
  fields: (t) => ({ kbId: t.exposeID('kb_id'), kbName: t.exposeString('kb_name', { nullable: true, description: 'null: the KB was deleted' }), ...countFields(t) }),
});
const ActivityRef = builder.objectRef<Activity>('Activity').implement({
  fields: (t) => ({
    from: t.exposeString('from'),
    to: t.exposeString('to'),
    total: t.field({ type: ActivityCountsRef, resolve: (a) => a.total }),
    days: t.field({ type: [ActivityDayRef], resolve: (a) => a.days }),
    knowledgeBases: t.field({ type: [ActivityKbRef], resolve: (a) => a.knowledge_bases }),
  }),
});

builder.queryFields((t) => ({
  unansweredQuestions: t.field({
    type: UnansweredRef,
    description: 'Questions the KB refused or answered with low support, grouped by similar wording, newest group first',
    args: { kbId: t.arg.id({ required: true }), from: t.arg.string(), to: t.arg.string(), first: t.arg.int({ defaultValue: 20 }) },
    resolve: async (_r, a, ctx) =>
      listUnansweredQuestions(await ctx.auth(), {
        kb_id: String(a.kbId),
        limit: a.first ?? 20,
        ...(a.from != null ? { from: a.from } : {}),
        ...(a.to != null ? { to: a.to } : {}),
      }),
  }),
  activity: t.field({
    type: ActivityRef,
    description: 'Questions per UTC day (answered, refused) and feedback, for the organisation or one KB; deleted KBs still count',
    args: { kbId: t.arg.id(), from: t.arg.string({ description: 'YYYY-MM-DD' }), to: t.arg.string({ description: 'YYYY-MM-DD' }) },
    resolve: async (_r, a, ctx) =>
      getActivity(await ctx.auth(), { ...(a.kbId != null ? { kb_id: String(a.kbId) } : {}), ...(a.from != null ? { from: a.from } : {}), ...(a.to != null ? { to: a.to } : {}) }),
  }),
}));
