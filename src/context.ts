/**
 * What every service call receives. Transports (REST, GraphQL, tRPC, jobs, ws) build it the same way
 * through `authenticateRequest`, so authorisation and tenancy are decided once, in the service layer.
 */
import { abortableDb, type Db } from '../db/connect';
import type { DatabaseHandle } from '../db/open-database';
import type { Organization } from '../db/types';
import type { EmbeddingRegistry } from './ai/embedding-registry';
import type { ModelRegistry } from './ai/providers';
import type { Config } from './config';
import type { ApiKeyId } from './ids';
import { SYSTEM_ACTOR, type Actor } from './services/access/actor';
import type { Logger } from './logger';
import type { JobQueue } from './services/jobs-port';

/** Process-wide dependencies, created once at boot (or per test). */
export type AppDeps = {
  db: Db;
  config: Config;
  logger: Logger;
  embeddings: EmbeddingRegistry;
  models: ModelRegistry;
  /** Background jobs, queued in the caller's transaction (src/services/jobs-port.ts). */
  jobs: JobQueue;
};

/** What an entry point opened at boot (src/runtime.ts): the dependencies, and the database to close. */
export type Runtime = { config: Config; logger: Logger; database: DatabaseHandle; deps: AppDeps };

/** A caller acting for one organisation. */
export type ServiceContext = AppDeps & {
  org: Organization;
  apiKeyId: ApiKeyId | null;
  /** Who is calling: what `authorize` (src/services/access/roles.ts) and the audit log go by. */
  actor: Actor;
  requestId: string;
  /** When the request arrived (ms since the epoch; when it was authenticated if the transport does not say): where its time budgets start. */
  receivedAt: number;
  /**
   * A read's request signal: once it aborts (the client went away) `db` starts no further
   * statement and cancels the running one (db/abortable.ts). Absent for writes, which run to their end.
   */
  signal?: AbortSignal;
};

export function createContext(
  deps: AppDeps,
  org: Organization,
  opts: { apiKeyId?: ApiKeyId | null; actor?: Actor; requestId: string; receivedAt?: number; signal?: AbortSignal },
): ServiceContext {
  const ctx: ServiceContext = {
    ...deps,
    logger: deps.logger.child({ requestId: opts.requestId, orgId: org.id }),
    org,
    apiKeyId: opts.apiKeyId ?? null,
    actor: opts.actor ?? SYSTEM_ACTOR,
    requestId: opts.requestId,
    receivedAt: opts.receivedAt ?? Date.now(),
  };
  return opts.signal ? stoppedBy(ctx, opts.signal) : ctx;
}

/** `ctx` for a read that stops when `signal` aborts: its database statements are stopped by it. */
export function stoppedBy(ctx: ServiceContext, signal: AbortSignal): ServiceContext {
  return { ...ctx, signal, db: abortableDb(ctx.db, signal) };
}
