/**
 * Parses and chunks every PDF, DOCX and Markdown file of the shared corpus and prints, per file:
 * status (ok, or failed with the user-facing reason), pages, sections, chunks, wall time and
 * peak RSS; then totals.
 *
 *   npx tsx bench/parse-corpus.ts              all files in one process (RSS = high-water mark so far)
 *   npx tsx bench/parse-corpus.ts --isolate    one process per file (RSS = that file's own peak)
 *   npx tsx bench/parse-corpus.ts --dir <dir>  another corpus
 *
 * Exits non-zero if any file fails with anything but a PermanentIngestError (a crash).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkDocument } from '../src/ingest/chunker';
import { detectType } from '../src/ingest/detect-type';
import { PermanentIngestError } from '../src/ingest/errors';
import { parseDocument } from '../src/ingest/parse-document';

interface Result {
  file: string;
  status: 'ok' | 'failed' | 'crashed';
  reason?: string;
  pages?: number;
  sections?: number;
  chunks?: number;
  maxChunkTokens?: number;
  ms: number;
  peakRssMb: number;
  sample?: string;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const argValue = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const corpus = path.resolve(argValue('--dir') ?? path.join(here, '../../shared/data/docs'));
const PER_FILE_TIMEOUT_MS = 180_000;

const peakRssMb = (): number => Math.round(process.resourceUsage().maxRSS / 1024);

async function runOne(file: string): Promise<Result> {
  const bytes = new Uint8Array(readFileSync(path.join(corpus, file)));
  const started = performance.now();
  try {
    const type = await detectType(bytes, file);
    const document = await parseDocument(bytes, { filename: file, type });
    const chunks = chunkDocument(document);
    return {
      file,
      status: 'ok',
      pages: document.pages,
      sections: document.sections.length,
      chunks: chunks.length,
      maxChunkTokens: Math.max(0, ...chunks.map((c) => c.tokenCount)),
      ms: Math.round(performance.now() - started),
      peakRssMb: peakRssMb(),
      sample: chunks[0]?.text.replace(/\s+/g, ' ').slice(0, 48),
    };
  } catch (err) {
    const permanent = err instanceof PermanentIngestError;
    return {
      file,
      status: permanent ? 'failed' : 'crashed',
      reason: permanent ? err.message : String((err as Error)?.stack ?? err),
      ms: Math.round(performance.now() - started),
      peakRssMb: peakRssMb(),
    };
  }
}

function runIsolated(file: string): Result {
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--dir', corpus, '--one', file], {
    encoding: 'utf8',
    timeout: PER_FILE_TIMEOUT_MS,
  });
  const line = child.stdout?.trim().split('\n').pop();
  if (child.status === 0 && line) return JSON.parse(line) as Result;
  return { file, status: 'crashed', reason: child.error ? String(child.error) : `exit ${child.status}: ${child.stderr?.slice(-500)}`, ms: 0, peakRssMb: 0 };
}

const pad = (value: unknown, width: number): string => String(value ?? '-').padEnd(width).slice(0, width);
const padLeft = (value: unknown, width: number): string => String(value ?? '-').padStart(width);

function printRow(r: Result): void {
  const detail = r.status === 'ok' ? JSON.stringify(r.sample ?? '') : r.reason?.split('\n')[0];
  console.log(
    [
      pad(r.file, 42),
      pad(r.status, 7),
      padLeft(r.pages, 5),
      padLeft(r.sections, 6),
      padLeft(r.chunks, 6),
      padLeft(r.maxChunkTokens, 5),
      padLeft(r.ms, 7),
      padLeft(r.peakRssMb, 6),
      ' ' + detail,
    ].join(' '),
  );
}

async function main(): Promise<void> {
  const one = argValue('--one');
  if (one) {
    console.log(JSON.stringify(await runOne(one)));
    return;
  }
  const files = readdirSync(corpus)
    .filter((f) => /\.(pdf|docx|md)$/i.test(f))
    .sort();
  const isolate = args.includes('--isolate');
  console.log(`corpus: ${corpus} (${files.length} files, ${isolate ? 'one process per file' : 'single process'})`);
  console.log(
    [pad('file', 42), pad('status', 7), padLeft('pages', 5), padLeft('sects', 6), padLeft('chunks', 6), padLeft('maxT', 5), padLeft('ms', 7), padLeft('rssMB', 6), ' first chunk / reason'].join(' '),
  );
  const results: Result[] = [];
  for (const file of files) {
    const result = isolate ? runIsolated(file) : await runOne(file);
    results.push(result);
    printRow(result);
  }

  const sum = (pick: (r: Result) => number | undefined): number => results.reduce((n, r) => n + (pick(r) ?? 0), 0);
  const count = (status: Result['status']): number => results.filter((r) => r.status === status).length;
  console.log('');
  console.log(
    `totals: ${results.length} files, ${count('ok')} ok, ${count('failed')} failed (permanent), ${count('crashed')} crashed; ` +
      `${sum((r) => r.pages)} pages, ${sum((r) => r.sections)} sections, ${sum((r) => r.chunks)} chunks; ` +
      `${sum((r) => r.ms)} ms; peak RSS ${Math.max(...results.map((r) => r.peakRssMb))} MB`,
  );
  if (count('crashed') > 0) process.exitCode = 1;
}

await main();
