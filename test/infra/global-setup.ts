/**
 * Once per test run: a PostgreSQL server with pgvector (TEST_DATABASE_URL, or a throwaway cluster)
 * holding a migrated template database. Each test file clones the template, so files run in
 * parallel on isolated databases without cleanup. A run stopped by a signal, a SIGKILL or a CI
 * timeout still stops that cluster and the browsers its tests launched (run-cleanup.ts).
 */
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createDb, createPool } from '../../db/connect';
import { ensureEmbeddedTemplate } from '../../db/embedded/template';
import { migrateToLatest } from '../../db/migrate';
import type { Cluster } from './postgres-cluster';
import { guardTestRun, startGuardedCluster } from './run-cleanup';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
    /** The `embedded` project's migrated PGlite tarball: the app's new-cluster template (db/embedded/template.ts); unset elsewhere. */
    embeddedSnapshot: string | undefined;
  }
}

const TEMPLATE = `gw_template_${process.pid}`;

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

type Shared = { adminUrl: string; cluster: Cluster | null; users: number };

/**
 * vitest runs global setup once per project, in its main process: both projects share one cluster
 * and one template (a second initdb, start and migration bought nothing). Kept on globalThis
 * because each project may load this module afresh; the last project's teardown stops it.
 */
const SHARED = Symbol.for('groundwork.test.postgres');
type WithShared = typeof globalThis & { [SHARED]?: Promise<Shared> };

async function startShared(): Promise<Shared> {
  const cluster = process.env.TEST_DATABASE_URL ? null : await startGuardedCluster();
  const adminUrl = process.env.TEST_DATABASE_URL ?? cluster!.url;

  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${TEMPLATE}`);
  await admin.query(`create database ${TEMPLATE}`);
  await admin.end();

  const pool = createPool(withDatabase(adminUrl, TEMPLATE), 2);
  const db = createDb(pool);
  await migrateToLatest(db, pool);
  await db.destroy();
  return { adminUrl, cluster, users: 0 };
}

export default async function setup(project: TestProject) {
  // Before any test process is forked: they inherit the run directory that marks their browsers.
  const guard = guardTestRun();
  const g = globalThis as WithShared;
  g[SHARED] ??= startShared();
  const shared = await g[SHARED];
  shared.users++;
  const { adminUrl, cluster } = shared;

  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgTemplate', TEMPLATE);

  // Each embedded test file's database starts from it instead of paying initdb (~7 s of CPU) and
  // the migrations again. `npm test` built it before vitest; kept after the run, as `--build` keeps it.
  const snapshot = project.config.env?.TEST_DB === 'embedded' ? await ensureEmbeddedTemplate() : null;
  project.provide('embeddedSnapshot', snapshot?.file);

  return async () => {
    if (--shared.users > 0) return;
    delete g[SHARED];
    if (cluster) {
      cluster.stop();
    } else {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${TEMPLATE} with (force)`);
      await c.end();
    }
    guard.release();
  };
}
