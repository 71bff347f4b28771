/** Worker entry point (Procfile `worker`): runs ingestion jobs against DATABASE_URL. Several may run at once. */
import { serve } from '@hono/node-server';
import { errorBody, toAppError } from './errors';
import { within } from './http/graceful-shutdown';
import { metricsResponse } from './http/metrics-endpoint';
import { startWorker } from './jobs/worker-runtime';
import { observePool } from './metrics';
import { openRuntime } from './runtime';

async function main() {
  const runtime = await openRuntime({ migrate: false, attach: true });
  const runner = await startWorker(runtime);
  observePool(runtime.database.pool, runtime.database.mode === 'postgres' ? 'postgres' : 'embedded');
  // Its job counters and pool: the queue itself is reported by every web process's /metrics.
  const port = runtime.config.metrics.workerPort;
  const metrics =
    port === null
      ? null
      : serve({
          port,
          hostname: runtime.config.host,
          fetch: (req) =>
            metricsResponse(runtime.config, req.headers.get('authorization') ?? undefined).catch((err) => {
              const appError = toAppError(err);
              return Response.json(errorBody(appError), { status: appError.status });
            }),
        });
  runtime.logger.info({ pid: process.pid, metricsPort: port }, 'worker started');
  const stop = async () => {
    metrics?.close();
    // Running jobs may finish within the drain bound; one cut short is released by the other workers' sweep.
    await within(runner.stop(), runtime.config.http.shutdownDrainMs);
    await within(runtime.database.close(), 5_000);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  await runner.promise;
}

main().catch((err) => {
  process.stderr.write(`worker failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
