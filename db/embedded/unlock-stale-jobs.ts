/**
 * Frees graphile-worker jobs and queues left locked by a worker that died with the process.
 *
 * Only correct for the embedded database: the caller holds the data directory's lock, so no other
 * process, hence no other worker, can be alive and working these jobs. (graphile-worker itself
 * only frees locks older than 4 hours, because on a shared PostgreSQL it cannot know who is alive.)
 * Run it before starting workers. Until graphile-worker has migrated its schema there is nothing
 * to unlock.
 */
import type pg from 'pg';

export type UnlockedJobs = { jobs: number; queues: number };

export async function unlockStaleJobs(
  db: Pick<pg.Pool | pg.ClientBase, 'query'>,
  schema = 'graphile_worker',
): Promise<UnlockedJobs> {
  const jobsTable = `${quoteIdent(schema)}._private_jobs`;
  const queuesTable = `${quoteIdent(schema)}._private_job_queues`;
  const { rows: present } = await db.query<{ ready: boolean }>(
    'select to_regclass($1) is not null and to_regclass($2) is not null as ready',
    [jobsTable, queuesTable],
  );
  if (!present[0]?.ready) return { jobs: 0, queues: 0 };

  // One statement, so one transaction. run_at is handled like graphile-worker's own resetLockedAt.
  const { rows } = await db.query<UnlockedJobs>(`
    with jobs as (
      update ${jobsTable}
      set locked_at = null, locked_by = null, run_at = greatest(run_at, now())
      where locked_at is not null or locked_by is not null
      returning 1
    ), queues as (
      update ${queuesTable}
      set locked_at = null, locked_by = null
      where locked_at is not null or locked_by is not null
      returning 1
    )
    select (select count(*) from jobs)::int as jobs, (select count(*) from queues)::int as queues`);
  return rows[0]!;
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
