/** Worker entry point (Procfile `worker`): runs ingestion jobs against DATABASE_URL. Several may run at once. */
import { startWorker } from './jobs/worker-runtime';
import { openRuntime } from './runtime';

async function main() {
  const runtime = await openRuntime({ migrate: false, attach: true });
  const runner = await startWorker(runtime);
  runtime.logger.info('worker started');
  const stop = async () => {
    await runner.stop();
    await runtime.database.close();
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
