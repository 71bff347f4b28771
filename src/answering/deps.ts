/**
 * What answering needs from the process: the database, the embedding and answer models, the
 * configuration and a logger. Services pass their context, which carries all of it; answering
 * never sees the caller's organisation or role (the services decided those before calling).
 */
import type { Db } from '../../db/connect';
import type { EmbeddingRegistry } from '../ai/embedding-registry';
import type { ModelRegistry } from '../ai/providers';
import type { Config } from '../config';
import type { Logger } from '../logger';

export type AnsweringDeps = { db: Db; config: Config; logger: Logger; embeddings: EmbeddingRegistry; models: ModelRegistry };
