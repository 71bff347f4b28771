/**
 * Signals for the offline refusal gate, over a dump of `npm run bench -- reports --dump FILE`
 * (which records each passage's retrieval scores, the fused candidate pool and the question's KB
 * lexicon frequencies): prints, per question that the current gate and answerer answer, the
 * candidate signals, so a rule separating off-topic questions from answerable ones can be chosen.
 *   node --import tsx bench/research/offtopic-gate.ts FILE
 */
import { answerFromPassages } from '../../src/ai/offline/answerer';
import { passageSupport, MIN_SUPPORT } from '../../src/ai/offline/support';
import { containsAnswer } from '../lib/squad';
import { readReportsDump } from '../lib/reports-dump';

const rows = readReportsDump(process.argv[2]!);
const k1 = 0.6;
const out: Array<Record<string, unknown>> = [];
for (const r of rows) {
  if (!r.confident || r.passages.length === 0) continue;
  const sup = passageSupport(r.question, r.passages.map((p, i) => ({ ...p, dense: r.scores[i]!.dense })));
  const best = Math.max(...sup);
  const a = answerFromPassages(r.question, r.passages);
  const n = r.lexicon.chunks;
  const idf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
  const terms = r.lexicon.terms;
  const idfAll = terms.reduce((s, t) => s + idf(t.df), 0);
  const idfIn = terms.reduce((s, t) => s + (t.df > 0 ? idf(t.df) : 0), 0);
  const topLex = Math.max(...r.scores.map((s) => s.lexical));
  const pool = r.pool;
  const argmax = (xs: number[]) => xs.indexOf(Math.max(...xs));
  const lexTop = argmax(pool.map((p) => p.lexical));
  const denTop = argmax(pool.map((p) => p.dense));
  const dens = pool.map((p) => p.dense).sort((x, y) => y - x);
  const lexs = pool.map((p) => p.lexical).sort((x, y) => y - x);
  const good =
    r.kind === 'answerable' ? a.markers.some((m) => r.files[m - 1] === r.want) : r.kind === 'squad' ? containsAnswer(a.text, r.answers!) : false;
  out.push({
    kind: r.kind === 'off-topic' ? `off:${r.corpus.slice(0, 5)}` : r.kind === 'held-out' ? `held:${r.corpus.slice(0, 5)}` : r.kind,
    q: r.question.slice(0, 60),
    gate: best >= MIN_SUPPORT,
    ans: !a.refused,
    good,
    sup: +best.toFixed(3),
    dense: +Math.max(...r.scores.map((s) => s.dense)).toFixed(3),
    kbcov: +(idfIn / idfAll).toFixed(3),
    missing: terms.filter((t) => t.df === 0).map((t) => t.lexeme).join(','),
    ceil: r.lexicalCeiling ? +(topLex / r.lexicalCeiling).toFixed(3) : 0,
    bm25n: +(topLex / ((k1 + 1) * idfAll)).toFixed(3),
    fz: +(pool[0]?.fused ?? 0).toFixed(2),
    agree: lexTop === denTop,
    dgap: +(dens[0]! - (dens[4] ?? 0)).toFixed(3),
    lgap: +((lexs[0]! - (lexs[4] ?? 0)) / Math.max(1e-9, lexs[0]!)).toFixed(3),
    // Per passage: the passage-IDF coverage (support.ts without its cosine), cosine, BM25 / ceiling.
    parts: r.scores.map((s, i) => [sup[i]! - 0.5 * Math.max(0, s.dense), s.dense, s.lexical / ((k1 + 1) * idfAll)]),
    pdb: Math.max(...r.scores.map((s) => s.dense + s.lexical / ((k1 + 1) * idfAll))),
    pcb: Math.max(...r.scores.map((s, i) => sup[i]! + s.lexical / ((k1 + 1) * idfAll))),
    bm25in: +(topLex / ((k1 + 1) * Math.max(1e-9, idfIn))).toFixed(3),
    cov: +(a.ranked.find((x) => x.focusHit)?.coverage ?? 0).toFixed(3),
  });
}
if (process.argv.includes('--json')) console.log(JSON.stringify(out));
else console.table(out.filter((o) => o.gate && o.ans));
