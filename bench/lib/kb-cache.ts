/**
 * Ingested KBs kept between bench runs (`--reuse`), so that a retrieval or answering experiment
 * re-runs in a minute or two instead of re-ingesting 41 filings for ten.
 *
 * A snapshot holds the KB's rows as ingestion left them (knowledge_bases, documents, chunks with
 * their tsvector and vector; the file bytes are left out: nothing the benches measure reads them).
 * kb_lexicon and its totals are not stored: the triggers on chunks rebuild them on restore, as
 * ingestion does.
 *
 * Its key is a SHA-1 over the KB's name, every file's name and bytes, and the source of everything
 * ingestion runs: each local module reachable by runtime imports from the ingestion job, the upload
 * service and the embedding registry (so src/ingest, chunking, identity, embedding; a type-only import
 * is not followed), every migration, and package-lock.json. A change to any of them misses the cache
 * and ingests afresh; a change to retrieval or answering (src/answering apart from
 * what ingestion imports) keeps it. Snapshots live in `$TMPDIR/groundwork-bench-kbs` unless
 * `--kb-cache DIR`; files are written to a temporary name and renamed, so two runs never read half a
 * snapshot.
 *
 * Restored rows keep their ids (a fresh database each run), with the org swapped for the bench's own.
 * The HNSW index is rebuilt by the inserts, in the original chunk order; it is approximate, so a
 * vector search over a restored KB can differ from a fresh ingestion in a rare tie, never in counts
 * of documents or chunks.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/types';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Where ingestion starts: the job that parses, chunks and embeds, the upload service, the embedders. */
const INGESTION_ROOTS = ['src/jobs/documents__ingest.ts', 'src/services/documents/ingest-upload.ts', 'src/ai/embedding-registry.ts', 'src/config.ts'];
const TABLES = ['knowledge_bases', 'documents', 'chunks'] as const;
const BATCH = 500;

export const defaultKbCacheDir = () => path.join(tmpdir(), 'groundwork-bench-kbs');

function resolveImport(from: string, spec: string): string | null {
  const base = path.resolve(path.dirname(from), spec);
  for (const c of [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) {
    if (/\.(ts|tsx|js|mjs)$/.test(c) && existsSync(c)) return c;
  }
  return null;
}

/** Every local module reachable from `roots` by runtime imports (static and dynamic), sorted. */
export function ingestionSources(roots = INGESTION_ROOTS): string[] {
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?<!import type [^;]*)(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const next = resolveImport(file, m[1]!);
      if (next) walk(next);
    }
  };
  for (const r of roots) walk(path.join(ROOT, r));
  const migrations = readdirSync(path.join(ROOT, 'db/migrations')).map((f) => path.join(ROOT, 'db/migrations', f));
  return [...new Set([...seen, ...migrations, path.join(ROOT, 'package-lock.json')])].filter((f) => existsSync(f)).sort();
}

let codeHash: string | null = null;
function ingestionCodeHash(): string {
  if (codeHash) return codeHash;
  const h = createHash('sha1');
  for (const f of ingestionSources()) h.update(path.relative(ROOT, f)).update('\0').update(readFileSync(f)).update('\0');
  return (codeHash = h.digest('hex'));
}

export function kbCacheKey(kbName: string, files: Array<{ filename: string; bytes: Buffer }>, embeddingModel: string): string {
  const h = createHash('sha1').update(ingestionCodeHash()).update('\0').update(kbName).update('\0').update(embeddingModel).update('\0');
  for (const f of files) h.update(f.filename).update('\0').update(createHash('sha1').update(f.bytes).digest('hex')).update('\0');
  return h.digest('hex');
}

/** Columns an insert may name (generated ones are computed by the database). */
async function writableColumns(db: Kysely<Database>, table: string): Promise<string[]> {
  const { rows } = await sql<{ column_name: string }>`
    select column_name from information_schema.columns
    where table_schema = current_schema() and table_name = ${table} and is_generated = 'NEVER'
    order by ordinal_position`.execute(db);
  return rows.map((r) => r.column_name);
}

const whereKb = (table: string) => sql.raw(table === 'knowledge_bases' ? 'id' : 'kb_id');
const orderOf = (table: string) => sql.raw(table === 'chunks' ? 'created_at, document_id, position' : 'created_at, id');

/** Writes the KB's rows to `file` (gzipped lines `table<TAB>json array`). */
export async function saveKb(db: Kysely<Database>, kbId: string, file: string): Promise<void> {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  async function* lines() {
    for (const table of TABLES) {
      const cols = sql.join((await writableColumns(db, table)).map((c) => sql.ref(`t.${c}`)));
      for (let offset = 0; ; offset += BATCH) {
        const { rows } = await sql<{ rows: string | null }>`
          select json_agg(row_to_json(x))::text as rows from (
            select ${cols} from ${sql.table(table)} t where t.${whereKb(table)} = ${kbId} order by ${orderOf(table)} limit ${BATCH} offset ${offset}
          ) x`.execute(db);
        if (!rows[0]?.rows) break;
        yield `${table}\t${rows[0].rows}\n`;
      }
    }
  }
  await pipeline(Readable.from(lines()), createGzip({ level: 1 }), createWriteStream(tmp));
  renameSync(tmp, file);
}

/**
 * Inserts a snapshot's rows under `orgId`; returns the KB's id, or null when `file` does not exist.
 * A KB already in the database (a kept database, the same snapshot twice) is left as it is.
 */
export async function restoreKb(db: Kysely<Database>, file: string, orgId: string): Promise<string | null> {
  if (!existsSync(file)) return null;
  let kbId: string | null = null;
  let skip = false;
  const columns = new Map<string, string[]>();
  const input = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of input) {
    const tab = line.indexOf('\t');
    const table = line.slice(0, tab);
    const json = line.slice(tab + 1);
    if (table === 'knowledge_bases') {
      kbId = (JSON.parse(json) as Array<{ id: string }>)[0]!.id;
      skip = (await db.selectFrom('knowledge_bases').select('id').where('id', '=', kbId as never).executeTakeFirst()) !== undefined;
    }
    if (skip) continue;
    if (!columns.has(table)) columns.set(table, await writableColumns(db, table));
    const cols = columns.get(table)!;
    const values = cols.map((c) => (c === 'org_id' ? sql`${orgId}::text` : sql.ref(`r.${c}`)));
    await sql`
      insert into ${sql.table(table)} (${sql.join(cols.map((c) => sql.ref(c)))})
      select ${sql.join(values)} from json_populate_recordset(null::${sql.table(table)}, ${json}::json) r`.execute(db);
  }
  if (!kbId) throw new Error(`${file}: no knowledge base in the snapshot`);
  if (!skip) await sql`analyze chunks`.execute(db);
  return kbId;
}
