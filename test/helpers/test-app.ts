/** A whole service for one test file: isolated database, deps, and the HTTP app to call with fetch. */
import { createApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import type { AppDeps } from '../../src/context';
import { graphileJobQueue } from '../../src/jobs/enqueue';
import { createLogger } from '../../src/logger';
import { createAiDeps, type Runtime } from '../../src/runtime';
import { createTestDatabase, testDbKind, type TestDbKind } from './test-database';

export type TestApp = Awaited<ReturnType<typeof createTestApp>>;

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', DATA_DIR: '/nonexistent', ...env });
}

export async function createTestApp(opts: { env?: Record<string, string>; kind?: TestDbKind } = {}) {
  const database = await createTestDatabase(opts.kind ?? testDbKind);
  // The configuration names the database the file really runs on, so code that differs between the
  // two (transactions on PostgreSQL, single statements and steps on the embedded one) runs the path
  // that database takes in production.
  const configured = testConfig(opts.env);
  const config: Config =
    database.mode === 'postgres' ? { ...configured, database: { kind: 'postgres', url: database.connectionString } } : configured;
  const logger = createLogger(config.logLevel);
  const deps: AppDeps = { db: database.db, config, logger, ...createAiDeps(config), jobs: graphileJobQueue };
  const runtime: Runtime = { config, logger, database, deps };
  const app = createApp(deps);
  return { app, deps, db: database.db, database, runtime, close: () => database.close() };
}
