/**
 * Multi-turn retrieval on SQuAD v1.1 dev: a conversation opens with a question that names an
 * article's subject ("What did Nikola Tesla study in Graz?"); follow-ups are other questions of
 * the same article with the subject replaced by "it"/"its" ("When did it move to Paris?"). Each
 * follow-up is condensed with the first exchange as history (the registry's condense model:
 * offline unless OPENAI_API_KEY), then retrieved. Prints follow-up Recall@1/@5 of the gold
 * paragraph between two bounds: the follow-up alone (no memory) and the original full question.
 *
 *   npm run bench -- conversations [--db postgres|embedded] [--articles N] [--per-article N]
 *
 * Only the paragraphs of the first N articles (default 12) are ingested, to keep the run short on
 * a shared machine; the bounds are measured on the same KB, so the ratio is what matters.
 */
import { parseArgs } from 'node:util';
import { runOnce } from 'graphile-worker';
import { silentWorkerLogger } from '../db/migrate';
import { condenseQuestion } from '../src/ai/condense';
import { createContext } from '../src/context';
import type { KbId } from '../src/ids';
import { createTaskList } from '../src/jobs/task-list';
import { ingestUpload } from '../src/services/documents/ingest-upload';
import { createKb } from '../src/services/kbs/create-kb';
import { createOrg } from '../src/services/orgs/create-org';
import { retrieve } from '../src/answering/retrieval/retrieve';
import { openBenchRuntime, type BenchDb } from './lib/bench-runtime';
import { loadSquad } from './lib/squad';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres' },
    articles: { type: 'string', default: '12' },
    'per-article': { type: 'string', default: '25' },
  },
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const { paragraphs, questions } = loadSquad();
const titles = [...new Set(paragraphs.map((p) => p.title))].slice(0, Number(values.articles));
const kept = paragraphs.filter((p) => titles.includes(p.title));

type Conversation = { first: string; firstAnswer: string; followUp: string; original: string; paragraph: number };
const conversations: Conversation[] = [];
for (const title of titles) {
  const subject = new RegExp(`\\b(?:the\\s+)?${escape(title)}(['’]s)?\\b`, 'i');
  const naming = questions.filter((q) => paragraphs[q.paragraph]!.title === title && subject.test(q.question));
  if (naming.length < 2) continue;
  const [first, ...rest] = naming;
  for (const q of rest.slice(0, Number(values['per-article']))) {
    const followUp = q.question.replace(subject, (_m, poss: string | undefined) => (poss ? 'its' : 'it'));
    conversations.push({ first: first!.question, firstAnswer: `${first!.answers[0]} [1].`, followUp, original: q.question, paragraph: q.paragraph });
  }
}

const rt = await openBenchRuntime(values.db as BenchDb);
try {
  const { org } = await createOrg(rt.deps, { name: 'Conversations bench', slug: 'conversations-bench', plan: 'pro' });
  const orgRow = await rt.deps.db.selectFrom('organizations').selectAll().where('id', '=', org.id).executeTakeFirstOrThrow();
  const ctx = createContext(rt.deps, orgRow, { requestId: 'bench' });
  const { kb } = await createKb(ctx, { name: 'SQuAD articles' });
  const docToParagraph = new Map<string, number>();
  for (const p of kept) {
    const { document } = await ingestUpload(ctx, { kb_id: kb.id, filename: `squad-${p.index}.txt`, bytes: Buffer.from(p.context) });
    docToParagraph.set(document.id, p.index);
  }
  await runOnce({ pgPool: rt.database.pool, taskList: createTaskList(rt.deps), concurrency: 2, noPreparedStatements: rt.database.mode !== 'postgres', logger: silentWorkerLogger });
  const kbRow = await rt.deps.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kb.id as KbId).executeTakeFirstOrThrow();

  const hits = { alone: [0, 0], condensed: [0, 0], full: [0, 0] };
  const at = async (query: string, paragraph: number, into: number[]) => {
    const { chunks } = await retrieve(rt.deps, kbRow, query, { topK: 5 });
    const docs = chunks.map((c) => docToParagraph.get(c.doc_id));
    if (docs[0] === paragraph) into[0]!++;
    if (docs.includes(paragraph)) into[1]!++;
  };
  for (const c of conversations) {
    const standalone = await condenseQuestion({
      model: rt.deps.models.condenseModel,
      history: [
        { role: 'user', content: c.first },
        { role: 'assistant', content: c.firstAnswer },
      ],
      followUp: c.followUp,
    });
    await at(c.followUp, c.paragraph, hits.alone);
    await at(standalone, c.paragraph, hits.condensed);
    await at(c.original, c.paragraph, hits.full);
  }
  const n = conversations.length;
  const row = (h: number[]) => ({ 'Recall@1': (h[0]! / n).toFixed(3), 'Recall@5': (h[1]! / n).toFixed(3) });
  console.log(`\nSQuAD conversations: ${titles.length} articles (${kept.length} paragraphs), ${n} follow-ups, condense model ${rt.deps.models.condenseModel.modelId}`);
  console.table({
    'follow-up alone (no memory)': row(hits.alone),
    'follow-up condensed (default)': row(hits.condensed),
    'original full question (bound)': row(hits.full),
  });
  console.log(`condensed R@5 = ${((100 * hits.condensed[1]!) / Math.max(1, hits.full[1]!)).toFixed(1)}% of the full-question bound`);
} finally {
  await rt.close();
}
