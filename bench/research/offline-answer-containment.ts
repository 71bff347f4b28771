/**
 * How often does the offline answerer's text contain a gold SQuAD answer?
 *
 * For N questions sampled (seeded) from SQuAD v1.1 dev, the passages are the
 * gold paragraph plus 4 other paragraphs of the same article (the hard kind of
 * distractor: same topic, same names), shuffled so the gold paragraph's rank
 * carries no signal. The question goes through the real path: buildAnswerPrompt
 * -> generateText(offline model). "Contained" = some gold answer string appears
 * in the answer, case-insensitively. Also reported: the gold-paragraph-first
 * ordering (what a good retriever gives), refusals, whether the gold passage
 * was cited, answer length, time per answer and time to first streamed token,
 * and how often it correctly refuses when the answer is not in the passages
 * (5 paragraphs of another article; 5 paragraphs of the same article minus
 * the gold one, where the answer is usually but not always absent).
 *
 *   npx tsx bench/research/offline-answer-containment.ts [--n 300] [--seed 1] [--data path]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateText, streamText } from 'ai';
import { buildAnswerPrompt, extractCitedMarkers, NOT_FOUND_ANSWER } from '../../src/ai/prompts';
import { createOfflineModel } from '../../src/ai/offline';

interface SquadQa {
  question: string;
  answers: Array<{ text: string }>;
}
interface SquadFile {
  data: Array<{ title: string; paragraphs: Array<{ context: string; qas: SquadQa[] }> }>;
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

// mulberry32: small seeded PRNG so runs are comparable.
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(xs: T[], rand: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

const here = fileURLToPath(new URL('.', import.meta.url));
const dataPath = arg('data', `${here}../../../shared/data/squad/dev-v1.1.json`);
const N = Number(arg('n', '300'));
const seed = Number(arg('seed', '1'));

const squad = JSON.parse(readFileSync(dataPath, 'utf8')) as SquadFile;
const all: Array<{ article: number; paragraph: number; qa: SquadQa }> = [];
squad.data.forEach((art, ai) =>
  art.paragraphs.forEach((p, pi) => p.qas.forEach((qa) => all.push({ article: ai, paragraph: pi, qa }))),
);
const rand = rng(seed);
const sample = shuffle(all, rand).slice(0, N);
const model = createOfflineModel();

function passagesFor(article: number, paragraphs: number[]) {
  const art = squad.data[article]!;
  return paragraphs.map((pi, i) => ({ marker: i + 1, text: art.paragraphs[pi]!.context, source: `${art.title}.txt` }));
}

async function answer(question: string, passages: ReturnType<typeof passagesFor>) {
  const { system, messages } = buildAnswerPrompt({ question, passages });
  const t0 = performance.now();
  const { text } = await generateText({ model, system, messages });
  return { text, ms: performance.now() - t0 };
}

async function run(order: 'shuffled' | 'gold-first') {
  let contained = 0;
  let refused = 0;
  let goldCited = 0;
  let words = 0;
  let ms = 0;
  const orderRand = rng(seed + 1000);
  for (const item of sample) {
    const art = squad.data[item.article]!;
    const others = shuffle(
      art.paragraphs.map((_, i) => i).filter((i) => i !== item.paragraph),
      orderRand,
    ).slice(0, 4);
    const picked = order === 'gold-first' ? [item.paragraph, ...others] : shuffle([item.paragraph, ...others], orderRand);
    const goldMarker = picked.indexOf(item.paragraph) + 1;
    const r = await answer(item.qa.question, passagesFor(item.article, picked));
    ms += r.ms;
    if (r.text === NOT_FOUND_ANSWER) refused++;
    if (item.qa.answers.some((a) => norm(r.text).includes(norm(a.text)))) contained++;
    if (extractCitedMarkers(r.text).includes(goldMarker)) goldCited++;
    words += r.text.split(/\s+/).length;
  }
  const pct = (x: number) => `${((100 * x) / sample.length).toFixed(1)}%`;
  console.log(
    `${order.padEnd(10)} n=${sample.length} containment=${pct(contained)} goldCited=${pct(goldCited)} refused=${pct(refused)} avgWords=${(words / sample.length).toFixed(1)} avgMs=${(ms / sample.length).toFixed(2)}`,
  );
}

async function refusals() {
  const rand = rng(seed + 2000);
  let otherArticle = 0;
  let sameArticle = 0;
  for (const item of sample) {
    let other = Math.floor(rand() * squad.data.length);
    if (other === item.article) other = (other + 1) % squad.data.length;
    const otherParas = shuffle(squad.data[other]!.paragraphs.map((_, i) => i), rand).slice(0, 5);
    if ((await answer(item.qa.question, passagesFor(other, otherParas))).text === NOT_FOUND_ANSWER) otherArticle++;
    const sameParas = shuffle(
      squad.data[item.article]!.paragraphs.map((_, i) => i).filter((i) => i !== item.paragraph),
      rand,
    ).slice(0, 5);
    if ((await answer(item.qa.question, passagesFor(item.article, sameParas))).text === NOT_FOUND_ANSWER) sameArticle++;
  }
  const pct = (x: number) => `${((100 * x) / sample.length).toFixed(1)}%`;
  console.log(`refusals  other-article passages=${pct(otherArticle)} same-article without gold=${pct(sameArticle)}`);
}

async function ttft() {
  const samples: number[] = [];
  const rand = rng(seed + 3000);
  for (const item of sample.slice(0, 100)) {
    const paras = shuffle(squad.data[item.article]!.paragraphs.map((_, i) => i), rand).slice(0, 5);
    const { system, messages } = buildAnswerPrompt({ question: item.qa.question, passages: passagesFor(item.article, paras) });
    const t0 = performance.now();
    const result = streamText({ model, system, messages });
    for await (const _ of result.textStream) break;
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const q = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]!.toFixed(2);
  console.log(`ttft       streamText, 5 passages: p50=${q(0.5)}ms p95=${q(0.95)}ms max=${q(1)}ms`);
}

console.log(`SQuAD v1.1 dev, seed=${seed}, 5 passages (gold + 4 from the same article)`);
await run('shuffled');
await run('gold-first');
await refusals();
await ttft();
