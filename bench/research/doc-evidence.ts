/**
 * Document-level evidence on the earnings calls: every question's fused candidate pool (as
 * retrieve() ranks it before the title re-rank) written to a file, then ranking variants scored on it
 * in process (right call first / in the top 5), so that a rule is tried in a second, not a bench run.
 *
 *   node --import tsx bench/research/doc-evidence.ts dump FILE     # ingests the 10 calls (PostgreSQL)
 *   node --import tsx bench/research/doc-evidence.ts eval FILE
 *
 * Measured (docs/retrieval.md, document evidence): the sum over the best 5 candidates beat the best 10 and the
 * candidate count; 0.25-0.5 of a z-score gave the same 0.811 with no loss in the top 5.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runOnce } from 'graphile-worker';
import { silentWorkerLogger } from '../../db/migrate';
import { createContext } from '../../src/context';
import type { KbId } from '../../src/ids';
import { createTaskList } from '../../src/jobs/task-list';
import { ingestUpload } from '../../src/services/documents/ingest-upload';
import { createKb } from '../../src/services/kbs/create-kb';
import { createOrg } from '../../src/services/orgs/create-org';
import { fuse } from '../../src/services/rag/fuse';
import { candidatePool, scoreCandidates } from '../../src/services/rag/retrieve';
import { titleBoosts } from '../../src/services/rag/title-boost';
import { openBenchRuntime } from '../lib/bench-runtime';

const EARNINGS = path.resolve(import.meta.dirname, '../../../shared/data/earnings-calls');
type Cand = { id: string; file: string; title: string | null; position: number; fused: number };
type Row = { id: string; question: string; want: string; candidates: Cand[] };

const [mode, file] = process.argv.slice(2);
if (mode === 'dump') await dump(file!);
else evaluate(JSON.parse(readFileSync(file!, 'utf8')) as Row[]);

async function dump(out: string) {
  const rt = await openBenchRuntime('postgres');
  try {
    const { org } = await createOrg(rt.deps, { name: 'Doc evidence', slug: 'doc-evidence', plan: 'pro' });
    const orgRow = await rt.deps.db.selectFrom('organizations').selectAll().where('id', '=', org.id).executeTakeFirstOrThrow();
    const ctx = createContext(rt.deps, orgRow, { requestId: 'research' });
    const { kb } = await createKb(ctx, { name: 'earnings calls' });
    for (const filename of readdirSync(path.join(EARNINGS, 'docs')).filter((f) => f.endsWith('.pdf'))) {
      await ingestUpload(ctx, { kb_id: kb.id, filename, bytes: readFileSync(path.join(EARNINGS, 'docs', filename)) });
    }
    await runOnce({ pgPool: rt.database.pool, taskList: createTaskList(rt.deps), concurrency: 2, logger: silentWorkerLogger });
    const kbRow = await rt.deps.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kb.id as KbId).executeTakeFirstOrThrow();
    const provider = rt.deps.embeddings.get(kbRow.embedding_model)!;
    const chunkDoc = new Map(
      (
        await rt.deps.db
          .selectFrom('chunks')
          .innerJoin('documents', 'documents.id', 'chunks.document_id')
          .select(['chunks.id', 'chunks.position', 'documents.filename', 'documents.title'])
          .where('chunks.kb_id', '=', kb.id as KbId)
          .execute()
      ).map((r) => [r.id as string, { file: r.filename, title: r.title, position: r.position }]),
    );
    const rows: Row[] = [];
    for (const line of readFileSync(path.join(EARNINGS, 'qna.jsonl'), 'utf8').split('\n').filter((l) => l.trim())) {
      const q = JSON.parse(line) as { id: string; question: string; source_files: string[] };
      if (q.source_files.length !== 1) continue;
      const embedding = await provider.embedQuery(q.question);
      const scored = await scoreCandidates(rt.deps.db, kb.id as KbId, q.question, { model: provider.id, embedding }, { pool: candidatePool(5), lexical: true });
      const fused = fuse(scored.candidates).slice(0, candidatePool(5));
      rows.push({ id: q.id, question: q.question, want: q.source_files[0]!, candidates: fused.map((c) => ({ id: c.id, ...chunkDoc.get(c.id)!, fused: c.fused })) });
    }
    writeFileSync(out, JSON.stringify(rows));
    console.log(`${rows.length} questions written to ${out}`);
  } finally {
    await rt.close();
  }
}

type Variant = (row: Row, boosted: number[]) => number[];

function evaluate(rows: Row[]) {
  const variants: Record<string, Variant> = { 'fused + title (as shipped)': (_r, b) => b };
  for (const gamma of [0.25, 0.5, 0.75, 1.0]) {
    for (const top of [5, 10]) {
      // A document's evidence: the sum of its chunks' positive scores among the best `top` candidates.
      variants[`doc sum top${top} x${gamma}`] = (row, b) => {
        const order = b.map((s, i) => [s, i] as const).sort((x, y) => y[0] - x[0]).slice(0, top);
        const sum = new Map<string, number>();
        for (const [s, i] of order) sum.set(row.candidates[i]!.file, (sum.get(row.candidates[i]!.file) ?? 0) + Math.max(0, s));
        const best = Math.max(...sum.values(), 1e-9);
        return b.map((s, i) => s + (gamma * (sum.get(row.candidates[i]!.file) ?? 0)) / best);
      };
      // ... counting a passage next to one already counted (overlapping text) only once.
      variants[`doc sum apart top${top} x${gamma}`] = (row, b) => {
        const order = b.map((s, i) => [s, i] as const).sort((x, y) => y[0] - x[0]).slice(0, top);
        const sum = new Map<string, number>();
        const seen = new Map<string, number[]>();
        for (const [s, i] of order) {
          const c = row.candidates[i]!;
          const at = seen.get(c.file) ?? [];
          if (!at.some((p) => Math.abs(p - c.position) <= 1)) sum.set(c.file, (sum.get(c.file) ?? 0) + Math.max(0, s));
          seen.set(c.file, [...at, c.position]);
        }
        const best = Math.max(...sum.values(), 1e-9);
        return b.map((s, i) => s + (gamma * (sum.get(row.candidates[i]!.file) ?? 0)) / best);
      };
      // ... or the count of its chunks among them.
      variants[`doc count top${top} x${gamma}`] = (row, b) => {
        const order = b.map((s, i) => [s, i] as const).sort((x, y) => y[0] - x[0]).slice(0, top);
        const n = new Map<string, number>();
        for (const [, i] of order) n.set(row.candidates[i]!.file, (n.get(row.candidates[i]!.file) ?? 0) + 1);
        const best = Math.max(...n.values());
        return b.map((s, i) => s + (gamma * (n.get(row.candidates[i]!.file) ?? 0)) / best);
      };
    }
  }
  const results: Array<[string, number, number, string[]]> = [];
  for (const [name, variant] of Object.entries(variants)) for (const perDoc of [5]) {
    let first = 0;
    let top5 = 0;
    const wrong: string[] = [];
    for (const row of rows) {
      const boosts = titleBoosts(row.question, row.candidates.map((c) => c.title));
      const scores = variant(row, row.candidates.map((c, i) => c.fused + boosts[i]!));
      const ranked: string[] = [];
      for (const [, i] of scores.map((s, i) => [s, i] as const).sort((x, y) => y[0] - x[0])) {
        const f = row.candidates[i]!.file;
        if (ranked.length < 5 && ranked.filter((x) => x === f).length < perDoc) ranked.push(f);
      }
      if (ranked[0] === row.want) first++;
      else wrong.push(row.id);
      if (ranked.includes(row.want)) top5++;
    }
    results.push([`${name} perDoc ${perDoc}`, first / rows.length, top5 / rows.length, wrong]);
  }
  for (const [name, first, top5, wrong] of results) console.log(`${name.padEnd(38)} first ${first.toFixed(3)} top5 ${top5.toFixed(3)}  ${wrong.join(' ')}`);
}
