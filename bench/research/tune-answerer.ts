/**
 * Re-runs the offline answerer over passages dumped by `npm run bench -- reports --dump FILE`, in
 * process and in about a second, so its refusal threshold and sentence choice can be tuned against
 * every kind of question at once (answerable earnings-call questions, unanswerable and off-topic
 * ones, a SQuAD sample). `node --import tsx bench/research/tune-answerer.ts FILE [--verbose]`
 */
import { answerFromPassages } from '../../src/ai/offline/answerer';
import { containsAnswer } from '../lib/squad';
import { cosine, readReportsDump, type ReadQuestion } from '../lib/reports-dump';
import { createLocalEmbeddingProvider } from '../../src/ai/embeddings';
import { passagesCoverQuestion } from '../../src/ai/offline/support';

// Older dumps have no scores: the passages' similarity is then recomputed with the offline model (without the title prefix).
const embedder = createLocalEmbeddingProvider();

const rows: ReadQuestion[] = readReportsDump(process.argv[2]!);
const verbose = process.argv.includes('--verbose');
const stats: Record<string, { n: number; answered: number; good: number }> = {};
// LEAD=x overrides the answerer's bonus for the first passage's document.
const options = process.env.LEAD ? { leadDocumentBonus: Number(process.env.LEAD) } : {};
for (const r of rows) {
  const key = r.kind === 'off-topic' || r.kind === 'held-out' ? `${r.kind} ${r.corpus}` : r.kind;
  const s = (stats[key] ??= { n: 0, answered: 0, good: 0 });
  s.n++;
  if (!r.confident || r.passages.length === 0) continue;
  // Dumps since the gate read BM25 carry each passage's scores as retrieval gave them.
  const scored = r.scores
    ? r.passages.map((p, i) => ({ ...p, dense: r.scores![i]!.dense, lexical: r.scores![i]!.lexical }))
    : await (async () => {
        const qv = await embedder.embedQuery(r.question);
        const pv = await embedder.embedDocuments(r.passages.map((p) => p.text));
        return r.passages.map((p, i) => ({ ...p, dense: cosine(qv, pv[i]!) }));
      })();
  if (!passagesCoverQuestion(r.question, scored, r.lexicalCeiling)) continue;
  const a = answerFromPassages(r.question, r.passages, options);
  if (a.refused) {
    if (verbose && r.kind === 'answerable') console.log(`REFUSED ${r.question} (want ${r.want?.slice(0, 7)}; got ${r.files.map((f) => f.slice(0, 7)).join(',')})`);
    continue;
  }
  s.answered++;
  if (r.kind === 'answerable' && a.markers.some((m) => r.files[m - 1] === r.want)) s.good++;
  if (r.kind === 'squad' && containsAnswer(a.text, r.answers!)) s.good++;
  if (verbose && (r.kind === 'off-topic' || r.kind === 'held-out' || r.kind === 'unanswerable')) console.log(`ANSWERED ${r.corpus}: ${r.question}\n  ${a.text.slice(0, 200)}`);
  if (verbose && r.kind === 'answerable' && !a.markers.some((m) => r.files[m - 1] === r.want))
    console.log(`WRONG CALL ${r.question} (want ${r.want?.slice(0, 7)}; cited ${a.markers.map((m) => r.files[m - 1]?.slice(0, 7)).join(',')})\n  ${a.text.slice(0, 300)}`);
}
console.table(
  Object.fromEntries(Object.entries(stats).map(([k, s]) => [k, { n: s.n, answered: s.answered, 'right (cites call / contains gold)': s.good }])),
);
