/** The sweeper frees exactly the jobs of workers whose process stopped beating. */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/open-database';
import { enqueueJob } from '../../src/jobs/enqueue';
import { beat, forgetProcess, releaseJobsOfDeadWorkers } from '../../src/services/workers/heartbeats';
import { createTestDatabase } from '../helpers/test-database';

let database: DatabaseHandle;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

async function lockJob(documentId: string, workerId: string, secondsAgo: number) {
  await enqueueJob(database.db, 'documents__ingest', { document_id: documentId });
  await sql`update graphile_worker._private_jobs set locked_by = ${workerId}, locked_at = now() - ${`${secondsAgo} seconds`}::interval, attempts = 1
            where payload->>'document_id' = ${documentId}`.execute(database.db);
}

async function lockedBy() {
  const { rows } = await sql<{ doc: string; locked_by: string | null }>`
    select payload->>'document_id' as doc, locked_by from graphile_worker._private_jobs order by 1`.execute(database.db);
  return Object.fromEntries(rows.map((r) => [r.doc, r.locked_by]));
}

it('unlocks jobs of dead or unknown workers once their lock is older than the stale bound, and nothing else', async () => {
  await beat(database.db, { processId: 'wrk_live', hostname: 'h1', pid: 1 }, ['worker-live-a', 'worker-live-b']);
  await beat(database.db, { processId: 'wrk_dead', hostname: 'h2', pid: 2 }, ['worker-dead']);
  await sql`update worker_heartbeats set beat_at = now() - interval '30 seconds' where process_id = 'wrk_dead'`.execute(database.db);

  await lockJob('doc_live', 'worker-live-a', 120); // a long job of a live worker
  await lockJob('doc_dead', 'worker-dead', 20); // its process stopped beating 30 s ago
  await lockJob('doc_never_registered', 'worker-unknown', 20); // died before its first beat
  await lockJob('doc_just_locked', 'worker-new', 1); // its process's first beat may not have landed yet
  await enqueueJob(database.db, 'documents__ingest', { document_id: 'doc_queued' });

  expect(await releaseJobsOfDeadWorkers(database.db, 10_000)).toMatchObject({ jobs: 2, queues: 0 });
  expect(await lockedBy()).toEqual({
    doc_dead: null,
    doc_just_locked: 'worker-new',
    doc_live: 'worker-live-a',
    doc_never_registered: null,
    doc_queued: null,
  });
  // Idempotent: a second sweep (another worker process's) finds nothing more.
  expect(await releaseJobsOfDeadWorkers(database.db, 10_000)).toMatchObject({ jobs: 0 });

  // A process that stops cleanly forgets itself; its workers' locks are then fair game.
  await forgetProcess(database.db, 'wrk_live');
  expect(await releaseJobsOfDeadWorkers(database.db, 10_000)).toMatchObject({ jobs: 1 });
  expect((await lockedBy()).doc_live).toBeNull();
});
