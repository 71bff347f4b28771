/**
 * Retrieval and answers per language, as a client sees them: each XQuAD language of
 * ../shared/data/xquad (the same 240 Wikipedia paragraphs and questions, translated) is uploaded as a
 * KB of 240 text documents to the server `npm start` runs (embedded default, offline), and every
 * question is asked through POST /api/rag/search with top_k 5 and stream true. The `citations`
 * event's passages count as retrieved and `done.refused` as a refusal. Prints per language: gold
 * paragraph first / in the top 5, the answer contains a gold span, refused; beside a BM25 reference
 * (MiniSearch, words from Intl.Segmenter) over the same paragraphs in the same run, and how many of
 * 50 off-topic questions in the KB's language (bench/lib/off-topic.ts) are answered instead of refused.
 *
 *   npm run bench -- languages [--langs en,de,es,zh] [--every N] [--half even|odd] [--concurrency 4]
 *                              [--json FILE] [--refusals FILE]
 *
 * `--every N` asks every Nth question (all by default); `--half` asks only the questions of the
 * even- or odd-numbered paragraphs, so a change tuned on one half is reported on the other.
 * `--refusals FILE` writes each refused question with the rank of its gold paragraph.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import MiniSearch from 'minisearch';
import pLimit from 'p-limit';
import { fileForm, newKb, startBenchServer, type BenchServer, type Doc } from './lib/ingest-server';
import * as offTopic from './lib/off-topic';

const XQUAD = path.resolve(import.meta.dirname, '../../shared/data/xquad');

const { values } = parseArgs({
  options: {
    langs: { type: 'string', default: 'en,de,es,zh' },
    every: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '4' },
    half: { type: 'string' },
    json: { type: 'string' },
    refusals: { type: 'string' },
  },
});

type Squad = { data: Array<{ paragraphs: Array<{ context: string; qas: Array<{ id: string; question: string; answers: Array<{ text: string }> }> }> }> };
type Question = { paragraph: number; question: string; answers: string[] };

function load(lang: string): { paragraphs: string[]; questions: Question[] } {
  const squad = JSON.parse(readFileSync(path.join(XQUAD, `xquad.${lang}.json`), 'utf8')) as Squad;
  const paragraphs: string[] = [];
  const questions: Question[] = [];
  for (const article of squad.data)
    for (const p of article.paragraphs) {
      const index = paragraphs.push(p.context) - 1;
      for (const q of p.qas) questions.push({ paragraph: index, question: q.question, answers: q.answers.map((a) => a.text) });
    }
  const every = Number(values.every);
  const inHalf = (q: Question) => values.half === undefined || q.paragraph % 2 === (values.half === 'odd' ? 1 : 0);
  return { paragraphs, questions: questions.filter(inHalf).filter((_, i) => i % every === 0) };
}

/** Lower-cased, spaces folded away: a gold span counts wherever the answer holds it, in any script. */
const normal = (s: string) => s.normalize('NFKC').toLowerCase().replace(/\s+/g, '');
export const containsSpan = (answer: string, spans: string[]) => spans.some((s) => normal(s).length > 0 && normal(answer).includes(normal(s)));

type Asked = { docs: string[]; refused: boolean; answer: string };

/** One question through the SSE search: the `citations` event's documents in order, then `done`. */
async function ask(b: BenchServer, kbId: string, question: string): Promise<Asked> {
  const res = await fetch(`${b.server.url}/api/rag/search`, {
    method: 'POST',
    headers: { 'x-api-key': b.key, 'content-type': 'application/json' },
    body: JSON.stringify({ query: question, kb_id: kbId, top_k: 5, stream: true }),
  });
  if (!res.ok) throw new Error(`search ${res.status}: ${await res.text()}`);
  const body = await res.text();
  const out: Asked = { docs: [], refused: false, answer: '' };
  for (const block of body.split('\n\n')) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = block
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6))
      .join('\n');
    if (event === 'citations') out.docs = (JSON.parse(data) as { citations: Array<{ doc_id: string }> }).citations.map((c) => c.doc_id);
    if (event === 'done') {
      const done = JSON.parse(data) as { refused: boolean; answer: string };
      out.refused = done.refused;
      out.answer = done.answer;
    }
  }
  return out;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
const segmentedWords = (text: string) => [...segmenter.segment(text)].filter((s) => s.isWordLike).map((s) => s.segment.toLowerCase());

/** The reference: MiniSearch's BM25 over the paragraphs, its words from Intl.Segmenter. */
function referenceBm25(paragraphs: string[], questions: Question[]): { first: number; top5: number } {
  const index = new MiniSearch<{ id: number; text: string }>({ fields: ['text'], tokenize: segmentedWords, processTerm: (t) => t });
  index.addAll(paragraphs.map((text, id) => ({ id, text })));
  let first = 0;
  let top5 = 0;
  for (const q of questions) {
    const hits = index.search(q.question, { combineWith: 'OR' }).slice(0, 5).map((h) => h.id as number);
    if (hits[0] === q.paragraph) first++;
    if (hits.includes(q.paragraph)) top5++;
  }
  return { first: first / questions.length, top5: top5 / questions.length };
}

/** Questions no XQuAD paragraph answers, in the KB's language (bench/lib/off-topic.ts): both lists, tuning and held-out. */
const OFF_TOPIC: Record<string, string[]> = {
  en: [...offTopic.OFF_TOPIC, ...offTopic.OFF_TOPIC_HELD_OUT],
  de: [...offTopic.OFF_TOPIC_DE, ...offTopic.OFF_TOPIC_HELD_OUT_DE],
  es: [...offTopic.OFF_TOPIC_ES, ...offTopic.OFF_TOPIC_HELD_OUT_ES],
  zh: [...offTopic.OFF_TOPIC_ZH, ...offTopic.OFF_TOPIC_HELD_OUT_ZH],
};

const langs = values.langs.split(',');
const b = await startBenchServer('embedded');
const rows: Array<Record<string, string | number>> = [];
const refusals: Array<{ lang: string; question: string; gold_rank: number; answers: string[]; reason?: string }> = [];

/** The KB's documents once it holds `count` of them and none is processing. */
async function allDocuments(kbId: string, count: number): Promise<Doc[]> {
  for (const deadline = performance.now() + 30 * 60_000; performance.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    const res = await fetch(`${b.server.url}/api/kbs/${kbId}/documents`, { headers: { 'x-api-key': b.key } });
    const docs = ((await res.json()) as { documents: Doc[] }).documents;
    if (docs.length >= count && docs.every((d) => d.status !== 'processing')) return docs;
  }
  throw new Error('ingestion did not finish in 30 min');
}

/** Which check of the answer path refused (GraphQL `retrieve`): `relevant` there means the answerer itself found no sentence. */
async function refusalReason(kbId: string, query: string): Promise<string> {
  const res = await fetch(`${b.server.url}/graphql`, {
    method: 'POST',
    headers: { 'x-api-key': b.key, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'query($kb: ID!, $q: String!) { retrieve(kbId: $kb, query: $q, topK: 5) { reason } }', variables: { kb: kbId, q: query } }),
  });
  const body = (await res.json()) as { data?: { retrieve: { reason: string } }; errors?: unknown };
  return body.data?.retrieve.reason === 'relevant' ? 'answerer' : (body.data?.retrieve.reason ?? JSON.stringify(body.errors));
}
try {
  for (const lang of langs) {
    const { paragraphs, questions } = load(lang);
    const t0 = performance.now();
    const kbId = await newKb(b, `XQuAD ${lang}`);
    for (let i = 0; i < paragraphs.length; i += 100) {
      const batch = paragraphs.slice(i, i + 100).map((text, k) => ({ name: `xquad-${lang}-${i + k}.txt`, bytes: new TextEncoder().encode(text) }));
      const res = await fetch(`${b.server.url}/api/ingest/upload`, { method: 'POST', headers: { 'x-api-key': b.key }, body: fileForm(kbId, batch) });
      if (!res.ok) throw new Error(`upload ${res.status}: ${await res.text()}`);
    }
    // A big upload queues some of its files, whose documents are created in the background: the KB's
    // document list, once it holds every file, is what maps documents to paragraphs.
    const docs = await allDocuments(kbId, paragraphs.length);
    const docToParagraph = new Map(docs.map((d) => [d.id, Number(/-(\d+)\.txt$/.exec(d.filename)![1])]));
    const ready = docs.filter((d) => d.status === 'ready').length;
    const ingestS = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    const limit = pLimit(Number(values.concurrency));
    const asked = await Promise.all(questions.map((q) => limit(() => ask(b, kbId, q.question))));
    const askS = (performance.now() - t1) / 1000;
    let first = 0;
    let top5 = 0;
    let contains = 0;
    let refused = 0;
    questions.forEach((q, i) => {
      const a = asked[i]!;
      const paras = a.docs.map((d) => docToParagraph.get(d));
      if (paras[0] === q.paragraph) first++;
      if (paras.includes(q.paragraph)) top5++;
      if (a.refused) {
        refused++;
        refusals.push({ lang, question: q.question, gold_rank: paras.indexOf(q.paragraph), answers: q.answers });
      } else if (containsSpan(a.answer, q.answers)) contains++;
    });
    if (values.refusals) for (const r of refusals) if (r.lang === lang) r.reason = await refusalReason(kbId, r.question);
    const n = questions.length;
    const ref = referenceBm25(paragraphs, questions);
    const off = OFF_TOPIC[lang] ?? [];
    const offAnswered = (await Promise.all(off.map((q) => limit(() => ask(b, kbId, q))))).filter((a) => !a.refused).length;
    const row = {
      lang,
      questions: n,
      ready: `${ready}/${paragraphs.length}`,
      first: +(first / n).toFixed(3),
      top5: +(top5 / n).toFixed(3),
      answer_contains: +(contains / n).toFixed(3),
      refused: `${refused}/${n}`,
      off_topic_answered: off.length > 0 ? `${offAnswered}/${off.length}` : '-',
      bm25_first: +ref.first.toFixed(3),
      bm25_top5: +ref.top5.toFixed(3),
      ingest_s: +ingestS.toFixed(1),
      ask_s: +askS.toFixed(1),
    };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
} finally {
  await b.stop();
}

console.log('\n| lang | questions | first | top 5 | answer contains a gold span | refused | off-topic answered | BM25 (Intl.Segmenter) first / top 5 |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.lang} | ${r.questions} | ${r.first} | ${r.top5} | ${r.answer_contains} | ${r.refused} | ${r.off_topic_answered} | ${r.bm25_first} / ${r.bm25_top5} |`);
if (values.json) writeFileSync(values.json, JSON.stringify(rows, null, 2));
if (values.refusals) writeFileSync(values.refusals, JSON.stringify(refusals, null, 2));
