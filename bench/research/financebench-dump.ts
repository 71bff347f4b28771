/**
 * A reports-style dump (bench/lib/reports-dump.ts) of FinanceBench's KBs only, restored from the
 * snapshots `npm run bench -- reports --corpora financebench --reuse` keeps (bench/lib/kb-cache.ts),
 * in a minute instead of the full reports run: its 68 questions, plus the off-topic and held-out
 * off-topic questions of bench/lib/off-topic.ts asked of the filings KB too (a KB of filings is
 * where a looser refusal gate would first answer "What was the revenue of the local bakery in
 * March?"). Each row's `files` are the filings (FinanceBench's doc names), so the replay
 * (bench/research/answer-gate-replay.ts) can score citations; `live` is what the service answered
 * (startSearch, the path every transport takes), to check the replay against.
 *
 *   node --import tsx bench/research/financebench-dump.ts --out FILE [--names real,opaque] [--earnings] [--kb-cache DIR]
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createContext } from '../../src/context';
import { createOrg } from '../../src/services/orgs/create-org';
import { answerPassages, collectAnswer } from '../../src/services/rag/answer-stream';
import { retrieve } from '../../src/services/rag/retrieve';
import { startSearch } from '../../src/services/rag/search';
import { openBenchRuntime } from '../lib/bench-runtime';
import { loadFinanceBench } from '../lib/financebench';
import { defaultKbCacheDir, kbCacheKey, restoreKb } from '../lib/kb-cache';
import { OFF_TOPIC, OFF_TOPIC_HELD_OUT } from '../lib/off-topic';
import type { DumpedQuestion } from '../lib/reports-dump';

const { values } = parseArgs({
  options: { out: { type: 'string' }, names: { type: 'string', default: 'real,opaque' }, earnings: { type: 'boolean', default: false }, 'kb-cache': { type: 'string' } },
});
const DATA = path.resolve(import.meta.dirname, '../../../shared/data/financebench');
const EARNINGS = path.resolve(import.meta.dirname, '../../../shared/data/earnings-calls');

export type LiveDumpedQuestion = DumpedQuestion & { live: { answer: string; refused: boolean; cited: string[]; closest: number } };

const rt = await openBenchRuntime('postgres');
const rows: LiveDumpedQuestion[] = [];
try {
  const { org } = await createOrg(rt.deps, { name: 'FinanceBench dump', slug: 'fb-dump', plan: 'pro' });
  const orgRow = await rt.deps.db.selectFrom('organizations').selectAll().where('id', '=', org.id).executeTakeFirstOrThrow();
  const ctx = createContext(rt.deps, orgRow, { requestId: 'bench' });
  type Set = { corpus: string; name: string; files: Array<{ filename: string; bytes: Buffer; docName: string }>; questions: Array<{ question: string; docName: string | null }> };
  const sets: Set[] = (values.names ? values.names.split(',') : []).filter(Boolean).map((naming) => {
    const { files, questions } = loadFinanceBench(DATA, { naming: naming as 'real' | 'opaque' });
    return { corpus: `financebench-${naming}`, name: `financebench (${naming} names)`, files, questions: questions.map((q) => ({ question: q.question, docName: q.docName })) };
  });
  if (values.earnings) {
    // As bench/reports.ts uploads and asks them: single-call questions, and the unanswerable ones.
    const files = readdirSync(path.join(EARNINGS, 'docs')).filter((f) => f.endsWith('.pdf')).sort().map((filename) => ({ filename, bytes: readFileSync(path.join(EARNINGS, 'docs', filename)), docName: filename }));
    const qna = readFileSync(path.join(EARNINGS, 'qna.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as { question: string; source_files: string[]; unanswerable: boolean });
    const questions = [...qna.filter((q) => q.source_files.length === 1).map((q) => ({ question: q.question, docName: q.source_files[0]! })), ...qna.filter((q) => q.unanswerable).map((q) => ({ question: q.question, docName: null }))];
    sets.unshift({ corpus: 'earnings', name: 'earnings calls', files, questions });
  }
  for (const { corpus, name, files, questions } of sets) {
    const snapshot = path.join(values['kb-cache'] ?? defaultKbCacheDir(), `${kbCacheKey(name, files, rt.deps.embeddings.default.id)}.jsonl.gz`);
    const kbId = await restoreKb(rt.deps.db, snapshot, org.id);
    if (!kbId) throw new Error(`no snapshot ${snapshot}: run \`npm run bench -- reports --reuse\` with that corpus first`);
    const kb = await rt.deps.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kbId as never).executeTakeFirstOrThrow();
    const docs = await rt.deps.db.selectFrom('documents').select(['id', 'filename']).where('kb_id', '=', kb.id).execute();
    const filingOfName = new Map(files.map((f) => [f.filename, f.docName]));
    const filing = new Map(docs.map((d) => [d.id as string, filingOfName.get(d.filename) ?? d.filename]));
    const asks: Array<Pick<DumpedQuestion, 'kind' | 'question' | 'want'>> = [
      ...questions.map((q) => (q.docName ? { kind: 'answerable' as const, question: q.question, want: q.docName } : { kind: 'unanswerable' as const, question: q.question })),
      ...OFF_TOPIC.map((question) => ({ kind: 'off-topic' as const, question })),
      ...OFF_TOPIC_HELD_OUT.map((question) => ({ kind: 'held-out' as const, question })),
    ];
    for (const a of asks) {
      const retrieval = await retrieve(rt.deps, kb, a.question, { topK: 5 });
      const done = await collectAnswer(await startSearch(ctx, { kb_id: kb.id, query: a.question, top_k: 5 }));
      rows.push({
        ...a,
        corpus,
        confident: retrieval.confident,
        passages: answerPassages(retrieval),
        files: retrieval.chunks.map((c) => filing.get(c.doc_id) ?? c.doc_id),
        scores: retrieval.chunks.map((c) => ({ lexical: c.lexical, dense: c.dense, score: c.score })),
        pool: [],
        lexicalCeiling: retrieval.lexicalCeiling ?? 0,
        lexicon: { chunks: 0, terms: [] },
        live: { answer: done.answer, refused: done.refused, cited: done.citations.map((c) => filing.get(c.doc_id) ?? c.doc_id), closest: done.closest.length },
      });
    }
    console.log(`${name}: ${asks.length} questions dumped`);
  }
  writeFileSync(values.out!, JSON.stringify(rows));
} finally {
  await rt.close();
}
