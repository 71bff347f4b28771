/**
 * Typed job enqueueing through graphile-worker's SQL API, so a job is added in the SAME transaction
 * as the rows it works on: either both exist or neither does.
 */
import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/types';

export const JOB_PAYLOADS = {
  documents__ingest: z.object({ document_id: z.string() }),
  documents__ingest_step: z.object({ document_id: z.string() }),
  kbs__reembed: z.object({ kb_id: z.string() }),
  documents__recrawl: z.object({ document_id: z.string() }),
  documents__recrawl_due: z.object({}).passthrough(),
} as const;

export type JobName = keyof typeof JOB_PAYLOADS;

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
export type JobPayload<N extends JobName> = z.infer<(typeof JOB_PAYLOADS)[N]>;

export async function enqueueJob<N extends JobName>(
  db: Kysely<Database>,
  name: N,
  payload: JobPayload<N>,
  opts: { jobKey?: string; maxAttempts?: number; runAt?: Date; queueName?: string } = {},
): Promise<void> {
  const parsed = JOB_PAYLOADS[name].parse(payload);
  await sql`select graphile_worker.add_job(
      ${name}::text,
      ${JSON.stringify(parsed)}::json,
      queue_name := ${opts.queueName ?? null}::text,
      job_key := ${opts.jobKey ?? null}::text,
      max_attempts := ${opts.maxAttempts ?? 5}::int,
      run_at := ${opts.runAt ?? null}::timestamptz
    )`.execute(db);
}
