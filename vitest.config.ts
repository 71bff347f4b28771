import { defineConfig } from 'vitest/config';
import DurationSequencer from './test/infra/duration-sequencer';

/**
 * Two projects: every test runs on real PostgreSQL + pgvector; the API and service tests run again
 * on the embedded PGlite database (TEST_DB=embedded), which is what `npm start` uses by default.
 */
const embeddedSuites = ['test/api/**/*.test.ts', 'test/services/**/*.test.ts', 'test/db/**/*.test.ts'];

/**
 * Opt-in (`TEST_SHARED_THREADS=1`, docs/performance.md, CI): the postgres project's in-process
 * files run on one reused worker thread beside the two forks, instead of one process each, which
 * costs ~0.7 s of CPU per file in starting node and loading node_modules (graphql, zod, the AI SDK,
 * pg…). Each file still gets fresh copies of our own modules (the project keeps `isolate`: metrics
 * registries, caches and config are per file as before); only node_modules and the thread are
 * shared. Left in their own process: files that spawn servers or signal processes, files that
 * measure the process (RSS, CPU, event loop), which a shared process would blur, and the two
 * crawl-and-ingest files. Off by default: not yet verified on a whole run, and in the one loaded
 * run tried the thread's lane stopped after a vitest RPC timeout, leaving its files unrun.
 */
const sharedThreads = process.env.TEST_SHARED_THREADS === '1';
const sharedThreadSuites = [
  'test/ai/**/*.test.ts',
  'test/services/**/*.test.ts',
  'test/widget/**/*.test.ts',
  'test/dashboard/**/*.test.ts',
  'test/api/!(inline-worker-thread|recrawl|ingest-pipelines).test.ts',
  'test/http/!(graceful-shutdown).test.ts',
  'test/ingest/!(parse-pdf|parse-docx|inflation-bombs|ocr-render-bounds).test.ts',
  'test/realtime/!(voice-sigterm).test.ts',
];

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
    // With TEST_SHARED_THREADS=1 the forks pool and the threads pool run side by side: two forks
    // for the process-bound files, one thread for the shared ones. The thread is reused (pool-level
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
          poolMatchGlobs: sharedThreads
            ? sharedThreadSuites.map((glob) => [`**/${glob}`, 'threads'] as [string, 'threads'])
            : undefined,
          poolOptions: { threads: { isolate: true } },
        },
      },
      { extends: true, test: { name: 'embedded', include: embeddedSuites, env: { TEST_DB: 'embedded' } } },
    ],
  },
});
