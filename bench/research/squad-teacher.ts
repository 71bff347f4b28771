/**
 * Runs the full USE-lite model over SQuAD dev's sentences, questions and paragraphs (two
 * processes, one per core; ~15 minutes) and leaves the vectors in $GW_RESEARCH, where
 * `squad-fusion.ts --full` and `distill-eval.ts` read them. Reference numbers only.
 *
 *   npx tsx bench/research/squad-teacher.ts
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSquad } from './lib/squad';

const dir = process.env.GW_RESEARCH ?? '/tmp/gw-research';
const teacherRun = fileURLToPath(new URL('../../src/ai/embeddings/distill/teacher-run.ts', import.meta.url));
const squad = loadSquad();
const sets = {
  sentences: squad.sentences,
  questions: squad.questions.map((q) => q.text),
  paragraphs: squad.paragraphs,
};

for (const [name, texts] of Object.entries(sets)) {
  const input = join(dir, `squad-${name}.json`);
  mkdirSync(join(dir, `squad-${name}`), { recursive: true });
  writeFileSync(input, JSON.stringify(texts));
  await Promise.all(
    [0, 1].map(
      (shard) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', teacherRun, input, join(dir, `squad-${name}`), String(shard), '2'], {
            stdio: ['ignore', 'inherit', 'ignore'],
          });
          child.on('error', reject);
          child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`teacher-run exited ${code}`))));
        }),
    ),
  );
}
