import { defineConfig } from 'vitest/config';
import DurationSequencer from './test/infra/duration-sequencer';

/**
 * Two projects: every test runs on real PostgreSQL + pgvector; the API and service tests run again
 * on the embedded PGlite database (TEST_DB=embedded), which is what `npm start` uses by default.
 */
const embeddedSuites = ['test/api/**/*.test.ts', 'test/services/**/*.test.ts', 'test/db/**/*.test.ts'];

/**
 * Shared worker thread (opt-in, `TEST_SHARED_THREADS=1`, docs/performance.md):
 * the in-process files of the postgres project, and the embedded project's service files, run on
 * one reused worker thread beside the two forks, instead of one process each. A process per file
 * costs CPU in starting node and loading node_modules (graphql, zod, the AI SDK, pg…) every time;
 * on test/ai, widget and dashboard (20 files) the thread took 33 s of CPU where a process each took
 * 55 s. Each file still gets fresh copies of our own modules (the project keeps `isolate`: metrics
 * registries, caches and config are per file as before); only node_modules and the thread are
 * shared, and test/infra/per-file-setup.ts gives each file a fresh fetch connection pool. Left in
 * their own process: files that spawn servers or signal processes, files that measure the process
 * (RSS, CPU, event loop), which a shared process would blur, the two crawl-and-ingest files, and the
 * embedded database's own tests (test/db: they open, crash and time its thread). Off by default:
 * at load ~30 the thread's lane stopped twice after a vitest RPC timeout (`Timeout calling
 * onTaskUpdate`), leaving its remaining files unrun; a quiet whole run with it has not been shown.
 */
const sharedThreads = process.env.TEST_SHARED_THREADS === '1';
const sharedThreadSuites = {
  postgres: [
    'test/ai/**/*.test.ts',
    'test/services/**/*.test.ts',
    'test/widget/**/*.test.ts',
    'test/dashboard/**/*.test.ts',
    'test/api/!(inline-worker-thread|recrawl|ingest-pipelines).test.ts',
    'test/http/!(graceful-shutdown).test.ts',
    'test/ingest/!(parse-pdf|parse-docx|inflation-bombs|ocr-render-bounds).test.ts',
    'test/realtime/!(voice-sigterm).test.ts',
  ],
  embedded: ['test/services/**/*.test.ts'],
};
const onSharedThread = (project: keyof typeof sharedThreadSuites) =>
  sharedThreads ? sharedThreadSuites[project].map((glob) => [`**/${glob}`, 'threads'] as [string, 'threads']) : undefined;

export default defineConfig({
  // graphql ships CJS and ESM builds; Node (and so graphql-yoga) loads the CJS one. Resolve ours the
  // same way so GraphQLError is one class, as it is in production.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    globalSetup: ['test/infra/global-setup.ts'],
    setupFiles: sharedThreads ? ['test/infra/per-file-setup.ts'] : [],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // With TEST_SHARED_THREADS=1 the forks pool and the threads pool run side by side: two forks for
    // the process-bound files, one thread for the shared ones. The thread is reused (pool-level
    // isolate off); per file the project's isolate still resets our modules.
    poolOptions: {
      forks: { maxForks: 2, minForks: 1 },
      threads: { maxThreads: 1, minThreads: 1, isolate: false },
    },
    reporters: ['default'],
    // Longest files first (test/infra/test-durations.json): both forks busy until the end.
    sequence: { sequencer: DurationSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/**/*.test.ts'],
          exclude: ['test/db/**'],
          env: { TEST_DB: 'postgres' },
          poolMatchGlobs: onSharedThread('postgres'),
          poolOptions: { threads: { isolate: true } },
        },
      },
      {
        extends: true,
        test: {
          name: 'embedded',
          include: embeddedSuites,
          env: { TEST_DB: 'embedded' },
          poolMatchGlobs: onSharedThread('embedded'),
          poolOptions: { threads: { isolate: true } },
        },
      },
    ],
  },
});
