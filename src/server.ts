/**
 * Web entry point (`npm start`, Procfile `web`). On the embedded default it also runs the ingestion
 * worker in-process and, on an empty database, creates a default organisation and prints its key.
 */
import { serve } from '@hono/node-server';
import type { Runner } from 'graphile-worker';
import { createApp } from './app';
import { startWorker } from './jobs/worker-runtime';
import { openRuntime } from './runtime';
import { ensureDefaultOrg } from './services/orgs/ensure-default-org';
import { ConfigError } from './config';
import { observePool, observeQueue } from './metrics';
import { queueStats } from './services/workers/queue-stats';

function printFirstKey(created: { org: { slug: string }; api_key: string }) {
  const lines = [
    'Groundwork created a default organisation on this empty database.',
    `  organisation: ${created.org.slug}`,
    `  API key:      ${created.api_key}`,
    'This key is shown only once. Send it as the x-api-key header.',
  ];
  const width = Math.max(...lines.map((l) => l.length)) + 2;
  const bar = '='.repeat(width + 2);
  process.stdout.write(`\n${bar}\n${lines.map((l) => `| ${l.padEnd(width - 1)}|`).join('\n')}\n${bar}\n\n`);
}

async function main() {
  const started = performance.now();
  const runtime = await openRuntime();
  const { config, logger, database } = runtime;

  const created = await ensureDefaultOrg(runtime.deps);
  if (created) printFirstKey(created);

  const worker: Runner | null = config.worker.inline ? await startWorker(runtime) : null;
  observePool(database.pool, database.mode === 'postgres' ? 'postgres' : 'embedded');
  observeQueue(() => queueStats(runtime.deps.db, { heartbeats: database.mode === 'postgres' }));
  const app = createApp(runtime.deps);
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    logger.info({ port: info.port, db: database.mode, worker: worker ? 'inline' : 'off', startupMs: Math.round(performance.now() - started) }, 'listening');
    process.stdout.write(`Groundwork listening on http://${config.host}:${info.port}\n`);
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await worker?.stop();
    await database.close();
    clearTimeout(force);
    logger.flush();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
  else process.stderr.write(`Groundwork failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
