// Runs the service from a bundle: `npm start`, `npm run worker` and `npm run cli` come here.
//   node src/app-bundle/launch.mjs server|worker|cli [arguments]
//   node src/app-bundle/launch.mjs --build      (postinstall, and the test runner before vitest)
//
// Loading ~2,000 modules through tsx's loader hooks cost every process 3–5 s of CPU before it did
// anything (docs/decisions.md); the bundle is our TypeScript compiled by esbuild into one
// file per entry (dist/app, git-ignored), with packages left to Node's own loader. It is plain
// JavaScript so that it needs no loader itself, and it rebuilds the bundle (~0.3 s) whenever a file
// the bundle was built from is newer, so an edit is never served stale.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT_DIR = path.join(ROOT, 'dist', 'app');
const MANIFEST = path.join(OUT_DIR, 'manifest.json');

/** Entries by the name their bundle is written under (worker threads are found by it: src/repo-root.ts). */
const ENTRIES = {
  server: 'src/server.ts',
  worker: 'src/worker.ts',
  cli: 'src/cli.ts',
  'database-thread.worker': 'db/embedded/database-thread.worker.ts',
  'worker-thread.worker': 'src/jobs/worker-thread.worker.ts',
  'pdf-pages.worker': 'src/ingest/pdf-pages.worker.ts',
  'pdf-parse.worker': 'src/ingest/pdf-parse.worker.ts',
  'chunk.worker': 'src/ingest/chunk.worker.ts',
  'embedded-template': 'db/embedded/build-template.ts',
};
const COMMANDS = ['server', 'worker', 'cli'];

/** Files whose change changes the bundle besides its inputs: this file (the options) and the resolution settings. */
const ALSO_READ = ['src/app-bundle/launch.mjs', 'package.json', 'tsconfig.json'];

function mtimeOf(relative) {
  try {
    return statSync(path.join(ROOT, relative)).mtimeMs;
  } catch {
    return Infinity;
  }
}

/** 'fresh', 'stale' (a source is newer, or the options changed) or 'missing' (nothing runnable). */
function bundleState() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  } catch {
    return 'missing';
  }
  if (!Array.isArray(manifest.outputs) || !Array.isArray(manifest.inputs)) return 'missing';
  const outputsThere = manifest.outputs.every((file) => mtimeOf(path.join('dist', 'app', file)) !== Infinity);
  const entriesMatch = Object.keys(ENTRIES).every((name) => manifest.outputs.includes(`${name}.mjs`));
  if (!outputsThere || !entriesMatch) return 'missing';
  return [...manifest.inputs, ...ALSO_READ].every((file) => mtimeOf(file) <= manifest.builtAt) ? 'fresh' : 'stale';
}

/**
 * Two processes may build at once (the Procfile's web and worker starting together): each file is
 * written under a name of its own and renamed over the old one, so a reader sees a whole file.
 * Chunks are named by their content and written before the entries that import them; an old chunk
 * is never deleted, because a process started from the old entries may still import it lazily.
 */
function writeAtomically(file, contents) {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}

async function buildBundle() {
  const builtAt = Date.now();
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ENTRIES,
    outdir: OUT_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    // A module the sources import lazily (the crawler, each parser, OCR) becomes a chunk of its own,
    // so its packages still load on first use instead of with the entry.
    splitting: true,
    define: { __GW_BUNDLED__: 'true' },
    // Error names and classes are read at run time (err.name, instanceof across modules).
    keepNames: true,
    sourcemap: 'linked',
    metafile: true,
    write: false,
    logLevel: 'error',
  });
  mkdirSync(OUT_DIR, { recursive: true });
  const entryFiles = new Set(Object.keys(ENTRIES).map((name) => path.join(OUT_DIR, `${name}.mjs`)));
  const inOrder = [...result.outputFiles].sort((a, b) => Number(entryFiles.has(a.path)) - Number(entryFiles.has(b.path)));
  for (const file of inOrder) writeAtomically(file.path, file.contents);
  const inputs = Object.keys(result.metafile.inputs).filter((file) => !file.startsWith('node_modules/'));
  const outputs = result.outputFiles.map((file) => path.relative(OUT_DIR, file.path)).filter((file) => file.endsWith('.mjs'));
  writeAtomically(MANIFEST, `${JSON.stringify({ builtAt, outputs, inputs })}\n`);
}

async function ensureBundle() {
  const state = bundleState();
  if (state === 'fresh') return;
  try {
    await buildBundle();
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    // A deploy whose files are read-only after the build (and whose sources look newer, as a copy
    // can make them) still starts, on the bundle its build made.
    if (state === 'stale' && typeof err?.code === 'string') {
      process.stderr.write(`dist/app is older than the sources but could not be rebuilt (${reason}); running it as built\n`);
      return;
    }
    // On a compile error esbuild has printed what failed, with file and line.
    process.stderr.write(`could not build dist/app from the sources: ${reason}\n`);
    process.exit(1);
  }
}

const [command] = process.argv.slice(2);
if (command === '--build') {
  await buildBundle();
  console.log(`built dist/app (${Object.keys(ENTRIES).join(', ')})`);
  // A new embedded data directory's first start then loads a migrated cluster (db/embedded/template.ts).
  // Without it that start creates the cluster itself, slower but the same, so a failure here only warns.
  const template = spawnSync(process.execPath, [path.join(OUT_DIR, 'embedded-template.mjs')], { cwd: ROOT, stdio: 'inherit' });
  if (template.status !== 0) process.stderr.write('the embedded database template was not built; new data directories will be created by initdb\n');
} else if (COMMANDS.includes(command)) {
  await ensureBundle();
  // The entry reads its own arguments (commander, for the CLI) as if it had been started directly.
  process.argv.splice(2, 1);
  await import(pathToFileURL(path.join(OUT_DIR, `${command}.mjs`)).href);
} else {
  process.stderr.write(`usage: node src/app-bundle/launch.mjs ${COMMANDS.join('|')} [arguments] | --build\n`);
  process.exit(2);
}
