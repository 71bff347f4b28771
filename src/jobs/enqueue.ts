/**
 * Typed job enqueueing through graphile-worker's SQL API, so a job is added in the SAME transaction
 * as the rows it works on: either both exist or neither does. The services reach it through their
 * port (src/services/jobs-port.ts): `graphileJobQueue` below is what the process wires in.
 */
import { sql, type RawBuilder } from 'kysely';
import { z } from 'zod';
import type { EnqueueOptions, JobName, JobPayload, JobPayloads, JobQueue, JobsDb, OrgJobOptions } from '../services/jobs-port';

export type { JobName, JobPayload };

export const JOB_PAYLOADS = {
  documents__ingest: z.object({ document_id: z.string() }),
  documents__ingest_step: z.object({ document_id: z.string() }),
  kbs__reembed: z.object({ kb_id: z.string() }),
  kbs__index_vectors: z.object({ kb_id: z.string() }),
  documents__recrawl: z.object({ document_id: z.string() }),
  documents__recrawl_due: z.object({}).passthrough(),
  evals__run: z.object({ run_id: z.string() }),
  evals__webhook: z.object({ run_id: z.string() }),
  uploads__admit: z.object({ batch_id: z.string() }),
} as const satisfies { [N in JobName]: z.ZodType<JobPayloads[N]> };

/**
 * An organisation's ingestion and crawl jobs go into ORG_LANES named queues, each of which
 * graphile-worker runs one job at a time across every worker process: an organisation flooding
 * uploads has at most ORG_LANES jobs running while the other worker slots serve other organisations
 * (issue #15, noisy neighbour), and a single organisation's bulk upload still ingests in parallel.
 * A document always takes the same lane, so its ingest and re-crawl jobs never run at once.
 */
const ORG_LANES = 2;
export const orgQueue = (orgId: string, documentId: string) => {
  let hash = 0;
  for (let i = 0; i < documentId.length; i++) hash = (hash * 31 + documentId.charCodeAt(i)) | 0;
  return `org:${orgId}:${Math.abs(hash) % ORG_LANES}`;
};
const orgLanes = (orgId: string) => Array.from({ length: ORG_LANES }, (_, i) => `org:${orgId}:${i}`);

export async function enqueueJob<N extends JobName>(db: JobsDb, name: N, payload: JobPayload<N>, opts: EnqueueOptions = {}): Promise<void> {
  await addJob(db, name, payload, opts, sql`null`);
}

/**
 * A job of one organisation's document, in the organisation's lane and served in turn (issue #26).
 * graphile-worker takes the ready job with the lowest (priority, run_at): the priority given here is
 * how many of the organisation's jobs are already waiting, so each organisation's first waiting job
 * goes before any organisation's second, its second before any third, and so on. An organisation
 * that queued thousands of documents (or a big document's next step, queued behind them) cannot make
 * another's one file wait for more than the job each worker slot is running. First come first served
 * made it wait for every job queued before it.
 */
export async function enqueueOrgJob<N extends JobName>(db: JobsDb, name: N, payload: JobPayload<N>, opts: OrgJobOptions): Promise<void> {
  await sql`select ${orgJobCall(name, payload, opts)}`.execute(db);
}

/** enqueueOrgJob's `graphile_worker.add_job(...)` call, for a statement that adds the job along with its rows. */
export function orgJobCall<N extends JobName>(name: N, payload: JobPayload<N>, opts: OrgJobOptions): RawBuilder<unknown> {
  const waiting = sql`(
    select least(count(*), 32767)::int
    from graphile_worker._private_jobs j
    join graphile_worker._private_job_queues q on q.id = j.job_queue_id
    where q.queue_name = any(${orgLanes(opts.orgId)}::text[])
      and j.locked_at is null
      and j.key is distinct from ${opts.jobKey ?? null}::text
  )`;
  return addJobCall(name, payload, { ...opts, queueName: orgQueue(opts.orgId, opts.documentId) }, waiting);
}

async function addJob(db: JobsDb, name: JobName, payload: unknown, opts: EnqueueOptions, priority: RawBuilder<unknown>): Promise<void> {
  await sql`select ${addJobCall(name, payload, opts, priority)}`.execute(db);
}

function addJobCall(name: JobName, payload: unknown, opts: EnqueueOptions, priority: RawBuilder<unknown>): RawBuilder<unknown> {
  const parsed = JOB_PAYLOADS[name].parse(payload);
  return sql`graphile_worker.add_job(
      ${name}::text,
      ${JSON.stringify(parsed)}::json,
      queue_name := ${opts.queueName ?? null}::text,
      job_key := ${opts.jobKey ?? null}::text,
      max_attempts := ${opts.maxAttempts ?? 5}::int,
      run_at := ${opts.runAt ?? null}::timestamptz,
      priority := ${priority}
    )`;
}

/**
 * Whether a job other than the running ones could start now: then a big document's job ends after
 * its current step and queues the next one behind it. A job of a queue another worker holds counts
 * too: yielding for nothing costs one step's hand-off, never fairness.
 */
export async function jobsWaiting(db: JobsDb): Promise<boolean> {
  const { rows } = await sql<{ waiting: boolean }>`select exists (
      select 1 from graphile_worker._private_jobs
      where locked_at is null and run_at <= now() and attempts < max_attempts
    ) as waiting`.execute(db);
  return rows[0]?.waiting === true;
}

export const graphileJobQueue: JobQueue = { enqueue: enqueueJob, enqueueOrg: enqueueOrgJob, orgJobCall, jobsWaiting };
