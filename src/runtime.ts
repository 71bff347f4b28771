/**
 * Boot sequence shared by the entry points: config -> logger -> database (migrated) -> deps.
 */
import { loadConfig, type Config } from './config';
import { createLogger, type Logger } from './logger';
import { openDatabase, type DatabaseHandle } from '../db/open-database';
import type { AppDeps } from './context';

export type Runtime = { config: Config; logger: Logger; database: DatabaseHandle; deps: AppDeps };

export async function openRuntime(opts: { config?: Config; logger?: Logger; attach?: boolean; migrate?: boolean } = {}): Promise<Runtime> {
  const config = opts.config ?? loadConfig();
  const logger = opts.logger ?? createLogger(config.logLevel);
  const database = await openDatabase(config, logger, { attach: opts.attach, migrate: opts.migrate });
  return { config, logger, database, deps: { db: database.db, config, logger } };
}
