import { writeFileSync } from 'node:fs';
import { buildCorpus } from '../../src/ai/embeddings/distill/corpus';
const t = performance.now();
const c = await buildCorpus({ sharedDocs: '/work/shared/data/docs', nodeModules: 'node_modules' });
console.log(c.length, 'sentences', ((performance.now() - t) / 1000).toFixed(1), 's');
writeFileSync('/tmp/gw-research/corpus.json', JSON.stringify(c));
for (let i = 0; i < 15; i++) console.log(c[Math.floor(Math.random() * c.length)]);
