/**
 * Web entry point (`npm start`, Procfile `web`). On the embedded default it also runs the ingestion
 * worker in-process, in a worker thread of its own (src/jobs/worker-thread.ts) so parsing and
 * embedding never hold the web loop, and, on an empty database, creates a default organisation and
 * prints its key.
 */
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { createApp } from './app';
import { createDrain, drainServer, trackConnections, within } from './http/graceful-shutdown';
import { hardenServer, serverOptions } from './http/server-limits';
import { clearServerAddress, recordServerAddress } from './http/server-address';
import { startWorkerThread, type WorkerThreadHandle } from './jobs/worker-thread';
import type { Logger } from './logger';
import { openRuntime } from './runtime';
import { ensureDefaultOrg } from './services/orgs/ensure-default-org';
import { ensureOwner } from './services/people/ensure-owner';
import { createSignInLink, signInLinkPath } from './services/admin-sessions/create-sign-in-link';
import type { OrgId } from './ids';
import { ConfigError } from './config';
import { attachVoiceGateway } from '../realtime/voice-gateway';
import { createFailedKeyThrottle } from './http/failed-key-throttle';
import { observePool, observeQueue } from './metrics';
import { queueStats } from './services/workers/queue-stats';

function printFirstKey(created: { org: { slug: string }; api_key: string }, dashboardUrl: string, owner: { email: string; link: string } | null) {
  const lines = [
    'Groundwork created a default organisation on this empty database.',
    `  organisation: ${created.org.slug}`,
    `  API key:      ${created.api_key}`,
    `  dashboard:    ${dashboardUrl}`,
    ...(owner ? [`  owner:        ${owner.email}`, `  sign in:      ${owner.link}`] : []),
    'This key is shown only once. Send it as the x-api-key header,',
    ...(owner ? ['or open the one-time link (15 minutes) to sign in as the owner and set a password.'] : ['or paste it into the dashboard to sign in.']),
  ];
  const width = Math.max(...lines.map((l) => l.length)) + 2;
  const bar = '='.repeat(width + 2);
  process.stdout.write(`\n${bar}\n${lines.map((l) => `| ${l.padEnd(width - 1)}|`).join('\n')}\n${bar}\n\n`);
}

/** For `dashboard link`; a server that cannot write it still serves (the CLI then uses its configuration). */
function recordAddress(dataDir: string, url: string, logger: Logger): void {
  try {
    recordServerAddress(dataDir, url);
  } catch (err) {
    logger.warn({ err }, 'could not record the server address for the CLI');
  }
}

async function main() {
  const started = performance.now();
  const runtime = await openRuntime();
  const { config, logger, database } = runtime;

  // The thread loads its modules while this one creates the default organisation.
  const starting = config.worker.inline ? startWorkerThread(runtime, { onExit: (err) => exitOnLostWorker(logger, err) }) : null;
  const [created] = await Promise.all([ensureDefaultOrg(runtime.deps), runtime.deps.embeddings.warm()]);
  const owner = created ? await ensureOwner(runtime.deps, created.org.id as OrgId) : null;
  const ownerLink = owner ? await createSignInLink(runtime.deps, owner.org_id, owner.id) : null;
  const worker: WorkerThreadHandle | null = await starting;
  observePool(database.pool, database.mode === 'postgres' ? 'postgres' : 'embedded');
  observeQueue(() => queueStats(runtime.deps.db, { heartbeats: database.mode === 'postgres' }));
  const drain = createDrain();
  const failedKeys = createFailedKeyThrottle(runtime.deps);
  const app = createApp({ ...runtime.deps, drain, failedKeys });
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host, serverOptions: serverOptions(config.http) }, (info) => {
    logger.info({ port: info.port, db: database.mode, worker: worker ? 'inline' : 'off', startupMs: Math.round(performance.now() - started) }, 'listening');
    // The box is printed once the port is known (PORT=0 picks one), before the "listening" line.
    const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
    const base = `http://${shownHost}:${info.port}`;
    if (created) printFirstKey(created, `${base}/admin`, owner && ownerLink ? { email: owner.email, link: `${base}${signInLinkPath(ownerLink.token)}` } : null);
    if (config.database.kind === 'embedded') recordAddress(config.database.dataDir, `http://${shownHost}:${info.port}`, logger);
    process.stdout.write(`Groundwork listening on http://${config.host}:${info.port}\n`);
    process.stdout.write(`Dashboard: http://${shownHost}:${info.port}/admin\n`);
  });
  hardenServer(server as Server);
  const connections = trackConnections(server as Server);
  const voice = attachVoiceGateway(server as Server, runtime.deps, { failedKeys });

  // SIGTERM: stop accepting, and meanwhile finish what is in flight and the inline worker's jobs,
  // each within SHUTDOWN_DRAIN_MS (a job cut short is released at the next start, or by the other
  // workers' sweep on PostgreSQL); then close the database and exit 0. The backstop exits 1 only if
  // a step hangs outright.
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const bound = config.http.shutdownDrainMs;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), bound + 20_000).unref();
    // Voice sessions are told `shutting_down` and their turns stored while the database is open.
    const [, drained, workerStopped] = await Promise.all([
      voice.close(),
      drainServer(server as Server, drain, bound, logger, connections),
      worker ? within(worker.stop(), bound) : true,
    ]);
    if (config.database.kind === 'embedded') clearServerAddress(config.database.dataDir);
    await within(database.close(), 5_000);
    clearTimeout(force);
    logger.info({ drainMs: drained.ms, cut: drained.cut, workerStopped }, 'shut down');
    logger.flush();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** As when the embedded database's thread dies (src/runtime.ts): exit loudly, the next start releases its jobs. */
function exitOnLostWorker(logger: Logger, err: Error): never {
  logger.fatal({ err }, 'inline worker thread stopped; exiting');
  logger.flush();
  process.stderr.write(`Groundwork: the inline worker stopped (${err.message}); exiting.\n`);
  process.exit(1);
}

main().catch((err) => {
  if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
  else process.stderr.write(`Groundwork failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
