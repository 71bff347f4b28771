/**
 * The migrated cluster a new embedded data directory starts from. Creating one in place costs the
 * first start PGlite's initdb and every migration (~6 s of the database thread), and leaves the
 * process ~550 MB larger than a restart on the same directory: initdb's own WebAssembly instance and
 * the garbage of both stay resident long after (docs/decisions.md). Loading a dumped
 * cluster instead takes ~0.5 s, and the process is the size of a restart.
 *
 * The template is built with the app (`node src/app-bundle/launch.mjs --build`: postinstall and
 * `npm test`) under `dist/embedded-template/<key>.tar`, keyed by what decides its contents: the
 * versions of PGlite, pgvector and graphile-worker, and each migration's source. A start that finds
 * no template for its key (a migration added since the last build) creates the cluster as before;
 * either way the migrations then run, so a template can only make a start faster, never different.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoFile } from '../../src/repo-root';
import { createDb, createPool } from '../connect';
import { migrateToLatest } from '../migrate';
import { migrations } from '../migrations/index';
import { openEmbeddedDatabase } from './open-embedded';

const TEMPLATE_DIR = repoFile('dist/embedded-template');
const PACKAGES = ['@electric-sql/pglite', '@electric-sql/pglite-pgvector', 'graphile-worker'];

function templateKey(): string {
  const hash = createHash('sha256');
  for (const name of PACKAGES) hash.update(readFileSync(repoFile(`node_modules/${name}/package.json`))).update('\0');
  for (const name of Object.keys(migrations)) hash.update(name).update(readFileSync(repoFile(`db/migrations/${name}.ts`))).update('\0');
  return hash.digest('hex').slice(0, 16);
}

function templatePath(): string {
  return path.join(TEMPLATE_DIR, `${templateKey()}.tar`);
}

/** The template for this code, or undefined when none was built for it (or its inputs are unreadable). */
export function embeddedTemplate(): string | undefined {
  try {
    const file = templatePath();
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/** A new in-memory cluster, migrated, as an uncompressed `dumpDataDir()` tarball (gunzip costs every load more than the disk does). */
export async function dumpMigratedCluster(): Promise<Uint8Array> {
  const embedded = await openEmbeddedDatabase({ dataDir: null });
  try {
    const pool = createPool(embedded.connectionString, 2, { embedded: true });
    const db = createDb(pool);
    try {
      await migrateToLatest(db, pool, { exclusive: false });
    } finally {
      await db.destroy();
    }
    return new Uint8Array(await (await embedded.pglite.dumpDataDir('none')).arrayBuffer());
  } finally {
    await embedded.close();
  }
}

/** Builds the template for this code unless it is there; templates of other keys are removed. */
export async function ensureEmbeddedTemplate(): Promise<{ file: string; built: boolean }> {
  const file = templatePath();
  const built = !existsSync(file);
  if (built) {
    const tarball = await dumpMigratedCluster();
    mkdirSync(TEMPLATE_DIR, { recursive: true });
    // Renamed into place whole: a start reading it never sees half a file.
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, tarball);
    renameSync(temporary, file);
  }
  for (const other of readdirSync(TEMPLATE_DIR)) {
    if (path.join(TEMPLATE_DIR, other) !== file && !other.endsWith('.tmp')) rmSync(path.join(TEMPLATE_DIR, other), { force: true });
  }
  return { file, built };
}
