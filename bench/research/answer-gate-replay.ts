/**
 * Replays the offline answer path (the refusal gate of src/services/rag/answer-gate.ts, then the
 * extractive answerer through its prompt) over a dump of `npm run bench -- reports --dump FILE`,
 * in seconds, so the gate and the answerer's choice of passages can be tuned on the tuning half of
 * FinanceBench's companies while every other set is watched: the held-out half, both namings,
 * earnings calls, the SQuAD sample, off-topic and held-out off-topic questions.
 *
 *   node --import tsx bench/research/answer-gate-replay.ts FILE [--verbose tuning|held-out|all] [--refusals] [--answers]
 *
 * FinanceBench's rows of the dump name passages by document id; the filing is read back from the
 * passage's source line (the file name, or for opaque names the SHA-1 of the filing's bytes).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { answerFromPassages } from '../../src/ai/offline/answerer';
import { NOT_FOUND_ANSWER, passageSource, sourceDocument } from '../../src/ai/prompts';
import { decideAnswerGate } from '../../src/services/rag/answer-gate';
import type { Retrieval, RetrievedChunk } from '../../src/services/rag/retrieve';
import { containsFigure, goldFigures, loadFinanceBench, type FinanceQuestion } from '../lib/financebench';
import { readReportsDump, type DumpedQuestion } from '../lib/reports-dump';
import { containsAnswer } from '../lib/squad';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { verbose: { type: 'string' }, refusals: { type: 'boolean', default: false }, answers: { type: 'boolean', default: false } } });
const DATA = path.resolve(import.meta.dirname, '../../../shared/data/financebench');

// Filing of an opaque file name: the SHA-1 of its bytes, as bench/lib/financebench.ts names it.
const bySha = new Map<string, string>();
for (const f of readdirSync(path.join(DATA, 'pdfs')).filter((x) => x.endsWith('.pdf'))) {
  bySha.set(`${createHash('sha1').update(readFileSync(path.join(DATA, 'pdfs', f))).digest('hex')}.pdf`, f);
}
const fq = new Map<string, FinanceQuestion>(loadFinanceBench(DATA, { naming: 'real' }).questions.map((q) => [q.question, q]));
const filingOf = (source: string) => {
  const name = /^[^,]+?\.pdf/.exec(source)?.[0] ?? '';
  return (bySha.get(name) ?? name).replace(/\.pdf$/, '');
};

/** The answer path as answer-stream.ts runs it offline: the gate, then the model reading its prompt. */
export function replay(r: DumpedQuestion) {
  const chunks = r.passages.map((p, i) => ({ ...r.scores[i]!, text: p.text }) as unknown as RetrievedChunk);
  const retrieval: Retrieval = { chunks, confident: r.confident, lexicalCeiling: r.lexicalCeiling };
  const gate = decideAnswerGate({ question: r.question, retrieval, passages: r.passages, offline: true });
  const why = `support ${gate.support} named ${gate.namedCoverage} full ${gate.fullCoverage}`;
  if (!gate.pass) return { refused: true, reason: gate.reason, text: NOT_FOUND_ANSWER, markers: [] as number[], why };
  // The prompt round trip: sources on one line, the document read back from the source line.
  const passages = r.passages.map((p) => {
    const source = p.source.replace(/\s+/g, ' ').trim();
    return { ...p, source, document: sourceDocument(source), text: p.text.trim() };
  });
  const a = answerFromPassages(r.question, passages, {});
  const best = a.ranked[0];
  const detail = best ? `; best sentence [${best.marker}] score ${best.score.toFixed(2)} coverage ${best.coverage.toFixed(2)} focus ${best.focusHit} offTarget ${best.offTarget}` : '';
  return { refused: a.refused, reason: a.refused ? 'model_refused' : 'answered', text: a.text, markers: a.markers, why: why + detail };
}
void passageSource;

let mismatches = 0;
type Tally = { n: number; refused: number; cites: number; only: number; figure: number; withGold: number; reasons: Record<string, number> };
const tallies = new Map<string, Tally>();
const tally = (key: string) => tallies.get(key) ?? (tallies.set(key, { n: 0, refused: 0, cites: 0, only: 0, figure: 0, withGold: 0, reasons: {} }), tallies.get(key)!);

for (const r of readReportsDump(positionals[0]!)) {
  const out = replay(r);
  // One line per question, to diff two versions of the answer code over the same dump.
  if (values.answers) console.log(`ANSWER ${r.corpus} ${r.kind} ${r.question.slice(0, 80)} => ${out.text}`);
  const live = (r as { live?: { refused: boolean; cited: string[] } }).live;
  if (live && live.refused !== out.refused) mismatches++;
  if (r.corpus.startsWith('financebench') && r.kind === 'answerable') {
    const q = fq.get(r.question);
    if (!q) continue;
    // bench/research/financebench-dump.ts names the filings; the reports dump names document ids.
    const filings = r.files.every((f) => f.startsWith('doc_')) ? r.passages.map((p) => filingOf(p.source)) : r.files;
    const cites = !out.refused && out.markers.some((m) => filings[m - 1] === q.docName);
    const gold = goldFigures(q.answer);
    const figure = gold.length > 0 && !out.refused && containsFigure(out.text, gold);
    for (const key of [`${r.corpus} ${q.half}`, `${r.corpus} all`]) {
      const t = tally(key);
      t.n++;
      if (out.refused) (t.refused++, (t.reasons[out.reason] = (t.reasons[out.reason] ?? 0) + 1));
      if (cites) t.cites++;
      if (gold.length > 0) t.withGold++;
      if (figure) t.figure++;
    }
    const show = values.verbose && (values.verbose === 'all' || values.verbose === q.half) && (!values.refusals || out.refused);
    if (show) {
      const top = filings.includes(q.docName) ? `right filing at ${filings.indexOf(q.docName) + 1}` : 'right filing not retrieved';
      console.log(
        `[${r.corpus} ${q.half}] ${out.refused ? `REFUSED (${out.reason})` : cites ? 'cites' : 'CITES OTHER'}${figure ? ' figure' : ''}; ${top}; confident ${r.confident}; ${out.why}\n  Q: ${r.question}\n  gold: ${q.answer.slice(0, 160)}\n  A: ${out.text.slice(0, 400)}\n  got: ${filings.map((f, i) => `${f}:${r.passages[i]!.source.match(/page \d+/)?.[0] ?? ''}`).join(' | ')}`,
      );
    }
    continue;
  }
  const kind = r.kind === 'off-topic' || r.kind === 'held-out' ? `${r.kind}${r.corpus.startsWith('financebench') ? ` (${r.corpus})` : ''}` : `${r.corpus} ${r.kind}`;
  const t = tally(kind);
  t.n++;
  if (out.refused) (t.refused++, (t.reasons[out.reason] = (t.reasons[out.reason] ?? 0) + 1));
  if (r.kind === 'answerable' && !out.refused && out.markers.some((m) => r.files[m - 1] === r.want)) t.cites++;
  if (r.kind === 'answerable' && !out.refused && out.markers.every((m) => r.files[m - 1] === r.want)) t.only++;
  if (r.kind === 'squad' && !out.refused && containsAnswer(out.text, r.answers!)) t.cites++;
  if ((r.kind === 'off-topic' || r.kind === 'held-out') && !out.refused && values.verbose) console.log(`ANSWERED ${r.kind} on ${r.corpus}: ${r.question} (${out.why})\n  A: ${out.text.slice(0, 200)}`);
}

console.table(
  Object.fromEntries(
    [...tallies.entries()].sort().map(([k, t]) => [
      k,
      {
        n: t.n,
        answered: t.n - t.refused,
        'right doc / gold': t.cites,
        share: (t.cites / Math.max(1, t.n)).toFixed(3),
        'cites only': t.only ? (t.only / Math.max(1, t.n)).toFixed(3) : '',
        figure: t.withGold ? `${t.figure} / ${t.withGold}` : '',
        refusals: Object.entries(t.reasons).map(([k, v]) => `${k} ${v}`).join(', '),
      },
    ]),
  ),
);
if (mismatches > 0) console.log(`replay and live answers disagree on refusing ${mismatches} questions`);
