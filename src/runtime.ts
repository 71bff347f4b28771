/**
 * Boot sequence shared by the entry points: config -> logger -> database (migrated) -> deps.
 */
import { openDatabase } from '../db/open-database';
import { createEmbeddingRegistry } from './ai/embedding-registry';
import { createModelRegistry } from './ai/providers';
import { loadConfig, type Config } from './config';
import type { AppDeps, Runtime } from './context';
import { graphileJobQueue } from './jobs/enqueue';
import { createLogger, type Logger } from './logger';

export type { Runtime };

export function createAiDeps(config: Config): Pick<AppDeps, 'embeddings' | 'models'> {
  return {
    embeddings: createEmbeddingRegistry(config),
    models: createModelRegistry(config.openai ? { openai: { apiKey: config.openai.apiKey, baseURL: config.openai.baseURL, model: config.openai.model } } : {}),
  };
}

export async function openRuntime(opts: { config?: Config; logger?: Logger; attach?: boolean; migrate?: boolean } = {}): Promise<Runtime> {
  const config = opts.config ?? loadConfig();
  const logger = opts.logger ?? createLogger(config.logLevel);
  const database = await openDatabase(config, logger, { attach: opts.attach, migrate: opts.migrate, onLost: (err) => exitOnLostDatabase(logger, err) });
  return { config, logger, database, deps: { db: database.db, config, logger, ...createAiDeps(config), jobs: graphileJobQueue } };
}

/**
 * The embedded database's thread died: without it every request and job would only fail, so the
 * process exits loudly instead of serving errors, and its manager (Procfile, systemd, Docker)
 * starts it again; the next start recovers the data directory and releases jobs left locked.
 */
function exitOnLostDatabase(logger: Logger, err: Error): never {
  logger.fatal({ err }, 'embedded database stopped; exiting');
  logger.flush();
  process.stderr.write(`Groundwork: the embedded database stopped (${err.message}); exiting.\n`);
  process.exit(1);
}
