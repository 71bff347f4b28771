import { defineConfig } from 'vitest/config';
import DurationSequencer from './test/infra/duration-sequencer';

/**
 * Two projects: every test runs on real PostgreSQL + pgvector; the API and service tests run again
 * on the embedded PGlite database (TEST_DB=embedded), which is what `npm start` uses by default.
 */
const embeddedSuites = ['test/api/**/*.test.ts', 'test/services/**/*.test.ts', 'test/db/**/*.test.ts'];

export default defineConfig({
  // graphql ships CJS and ESM builds; Node (and so graphql-yoga) loads the CJS one. Resolve ours the
  // same way so GraphQLError is one class, as it is in production.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    globalSetup: ['test/infra/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    reporters: ['default'],
    // Longest files first (test/infra/test-durations.json): both forks busy until the end.
    sequence: { sequencer: DurationSequencer },
    projects: [
      {
        extends: true,
        test: { name: 'postgres', include: ['test/**/*.test.ts'], exclude: ['test/db/**'], env: { TEST_DB: 'postgres' } },
      },
      { extends: true, test: { name: 'embedded', include: embeddedSuites, env: { TEST_DB: 'embedded' } } },
    ],
  },
});
