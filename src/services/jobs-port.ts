/**
 * How a service queues background work, without depending on the job runner: the services call
 * this interface (ctx.jobs / deps.jobs), and the jobs layer provides the implementation when the
 * process builds its dependencies (src/jobs/enqueue.ts, wired in src/runtime.ts). Every method
 * takes the connection or transaction to write with, so a job is added in the same transaction as
 * the rows it works on: either both exist or neither does.
 */
import type { Kysely, RawBuilder } from 'kysely';
import type { Database } from '../../db/types';

/** The jobs services queue and what each one carries (validated again when queued and when run). */
export type JobPayloads = {
  documents__ingest: { document_id: string };
  documents__ingest_step: { document_id: string };
  kbs__reembed: { kb_id: string };
  kbs__index_vectors: { kb_id: string };
  documents__recrawl: { document_id: string };
  documents__recrawl_due: Record<string, unknown>;
  evals__run: { run_id: string };
  evals__webhook: { run_id: string };
  uploads__admit: { batch_id: string };
};

export type JobName = keyof JobPayloads;
export type JobPayload<N extends JobName> = JobPayloads[N];

/** A connection or a transaction: the job is written with it. */
export type JobsDb = Kysely<Database>;

export type EnqueueOptions = { jobKey?: string; maxAttempts?: number; runAt?: Date; queueName?: string };

/** A job of one organisation's document: queued in the organisation's lane, served in turn. */
export type OrgJobOptions = Omit<EnqueueOptions, 'queueName'> & { orgId: string; documentId: string };

export interface JobQueue {
  enqueue<N extends JobName>(db: JobsDb, name: N, payload: JobPayload<N>, opts?: EnqueueOptions): Promise<void>;
  enqueueOrg<N extends JobName>(db: JobsDb, name: N, payload: JobPayload<N>, opts: OrgJobOptions): Promise<void>;
  /** enqueueOrg's call as an SQL expression, for a statement that adds the job along with its rows. */
  orgJobCall<N extends JobName>(name: N, payload: JobPayload<N>, opts: OrgJobOptions): RawBuilder<unknown>;
  /** Whether a job other than the running ones could start now (a long job then yields after its current step). */
  jobsWaiting(db: JobsDb): Promise<boolean>;
}
