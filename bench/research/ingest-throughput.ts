/**
 * Embedding cost of a real large document: the 619-page PDF in ../shared/data/docs.
 * Extracts its text (unpdf, timed separately: that is the parser's cost, not ours),
 * splits it into sentences and ~300-token chunks, and embeds both with the offline
 * provider; then, for reference, times the full USE-lite model on a sample of the same
 * sentences and extrapolates. Prints throughput, query latency and memory.
 *
 *   npx tsx bench/research/ingest-throughput.ts [path.pdf] [--no-full]
 */
import { readFileSync } from 'node:fs';
import { extractText, getDocumentProxy } from 'unpdf';
import { splitSentences } from '../../src/ai/embeddings/sentences';
import { createLocalEmbeddingProvider } from '../../src/ai/embeddings/local';

const pdfPath = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? '../shared/data/docs/DA-619p.pdf';
const mb = (bytes: number) => Math.round(bytes / 1e6);

let t = performance.now();
const pdf = await getDocumentProxy(new Uint8Array(readFileSync(pdfPath)));
const { totalPages, text } = await extractText(pdf, { mergePages: true });
const extractSeconds = (performance.now() - t) / 1000;
const sentences = splitSentences(text);
// ~300 pieces per chunk is ~225 words of English prose.
const words = text.split(/\s+/).filter(Boolean);
const chunks: string[] = [];
for (let i = 0; i < words.length; i += 225) chunks.push(words.slice(i, i + 225).join(' '));
console.log(`${pdfPath}: ${totalPages} pages, ${words.length} words, ${sentences.length} sentences, ${chunks.length} chunks; text extraction ${extractSeconds.toFixed(1)} s`);

const rssStart = process.memoryUsage().rss;
const provider = createLocalEmbeddingProvider();
t = performance.now();
await provider.embedQuery('load');
const loadMs = performance.now() - t;
t = performance.now();
const sentenceVectors = await provider.embedDocuments(sentences);
const sentenceSeconds = (performance.now() - t) / 1000;
t = performance.now();
await provider.embedDocuments(chunks);
const chunkSeconds = (performance.now() - t) / 1000;
const queries = sentences.slice(0, 2000).map((s) => s.split(' ').slice(0, 10).join(' '));
const lat: number[] = [];
for (const q of queries) {
  const t0 = performance.now();
  await provider.embedQuery(q);
  lat.push(performance.now() - t0);
}
lat.sort((a, b) => a - b);
console.log(
  `${provider.id}: load ${loadMs.toFixed(0)} ms; ${sentences.length} sentences in ${sentenceSeconds.toFixed(2)} s ` +
    `(${Math.round(sentences.length / sentenceSeconds)}/s), ${chunks.length} chunks in ${chunkSeconds.toFixed(2)} s ` +
    `(${Math.round(chunks.length / chunkSeconds)}/s), one thread; query p50 ${lat[lat.length >> 1]!.toFixed(3)} ms ` +
    `p99 ${lat[Math.floor(lat.length * 0.99)]!.toFixed(3)} ms; vectors ${mb(sentenceVectors.length * 512 * 4)} MB; ` +
    `RSS +${mb(process.memoryUsage().rss - rssStart)} MB (now ${mb(process.memoryUsage().rss)} MB)`,
);

if (!process.argv.includes('--no-full')) {
  const { loadTeacher } = await import('../../src/ai/embeddings/distill/teacher');
  const teacher = await loadTeacher();
  // Every 30th sentence: a sample spread over the whole manual.
  const sample = sentences.filter((_, i) => i % 30 === 0).slice(0, 400);
  for (const batch of [1, 16]) {
    t = performance.now();
    for (let i = 0; i < sample.length; i += batch) {
      await teacher.run(sample.slice(i, i + batch).map((s) => teacher.tokenizer.encode(s)));
    }
    const perSentence = (performance.now() - t) / sample.length;
    console.log(
      `full USE-lite, batch ${batch}: ${perSentence.toFixed(1)} ms/sentence on one thread -> ` +
        `${((perSentence * sentences.length) / 1000).toFixed(0)} s for this document (about half that on two cores)`,
    );
  }
}
console.log(`peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
