/**
 * Starts graphile-worker on the service's pool. On the embedded database all connections share one
 * PGlite session, so prepared statement names would collide: noPreparedStatements is mandatory there.
 */
import { EventEmitter } from 'node:events';
import { Logger as WorkerLogger, parseCronItems, run, type RunnerOptions, type WorkerEvents } from 'graphile-worker';
import { randomBase62 } from '../ids';
import type { Logger } from '../logger';
import type { Runtime } from '../context';
import { enqueueReembeddingWhereNeeded } from '../services/kbs/reembed-kb';
import { beat, forgetProcess, releaseJobsOfDeadWorkers, STALE_SWEEP_MS, thisProcess, WORKER_BEAT_MS } from '../services/workers/heartbeats';
import { collectAfterBigJobs } from './collect-after-jobs';
import { createTaskList } from './task-list';

function workerLogger(logger: Logger) {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' ? 'info' : 'debug';
    logger[method]({ worker: scope, ...meta }, message);
  });
}

export const RECRAWL_CRON = parseCronItems([{ task: 'documents__recrawl_due', match: '*/10 * * * *', identifier: 'documents__recrawl_due' }]);

/** A running worker (graphile-worker's runner, replaced when it breaks): `promise` settles once stopped. */
export type WorkerHandle = { stop(): Promise<void>; promise: Promise<void> };
/** The runner in this thread, with graphile-worker's emitter for those that watch its jobs (the order jobs start in). */
export type RunnerHandle = WorkerHandle & { events: WorkerEvents };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `events`: the emitter graphile-worker reports on, for a caller that must hear every job from the
 * first: jobs start before this resolves (the heartbeat's first write is awaited after the runner).
 */
export async function startWorker(runtime: Runtime, opts: { pollInterval?: number; events?: WorkerEvents } = {}): Promise<RunnerHandle> {
  const { config, logger, database } = runtime;
  // A changed embedding model (e.g. OPENAI_API_KEY added) is rolled out to existing KBs in the background.
  await enqueueReembeddingWhereNeeded(runtime.deps);
  const events = opts.events ?? (new EventEmitter() as WorkerEvents);
  const workerIds = new Set<string>();
  events.on('worker:create', ({ worker }) => void workerIds.add(worker.workerId));
  events.on('worker:stop', ({ worker }) => void workerIds.delete(worker.workerId));
  collectAfterBigJobs(events);
  const log = logger.child({ component: 'worker' });
  const options: RunnerOptions = {
    events,
    pgPool: database.pool,
    taskList: createTaskList(runtime.deps),
    concurrency: config.worker.concurrency,
    noHandleSignals: true,
    noPreparedStatements: database.mode !== 'postgres',
    pollInterval: opts.pollInterval ?? 2000,
    logger: workerLogger(log),
    // Scheduled re-crawls: every 10 minutes the documents whose next_crawl_at has passed are queued.
    parsedCronItems: RECRAWL_CRON,
  };
  let runner = await run(options);
  let stopping = false;
  let replacing: Promise<void> | null = null;
  let stopped: Promise<void> | null = null;
  let settle = () => {};
  const promise = new Promise<void>((resolve) => (settle = resolve));

  /**
   * graphile-worker ends a worker that could not record its job's outcome (the database went away
   * in the middle of a job) and does not start another (a TODO in its pool): after a database
   * restart a process could be left beating with no worker at all. So that worker's id leaves this
   * process's heartbeat (the sweep then releases its job, heartbeats.ts), and the runner is replaced
   * by a new one as soon as the database answers; the old one finishes its running jobs and stops.
   */
  const retiring = new Set<Promise<void>>();
  const replace = async () => {
    const broken = runner;
    while (!stopping) {
      await sleep(1_000);
      try {
        runner = await run(options);
        log.warn('worker runner replaced after a database error');
        break;
      } catch (err) {
        log.warn({ err: String(err) }, 'worker runner could not start yet; retrying');
      }
    }
    const retired = broken.stop().catch(() => {});
    retiring.add(retired);
    void retired.finally(() => retiring.delete(retired));
  };
  events.on('worker:fatalError', ({ worker, error }) => {
    workerIds.delete(worker.workerId);
    log.warn({ workerId: worker.workerId, err: String(error) }, 'a worker died on a database error');
    if (!stopping) replacing ??= replace().finally(() => (replacing = null));
  });

  const handle: RunnerHandle = {
    promise,
    events,
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        await replacing;
        await Promise.all([runner.stop().catch(() => {}), ...retiring]);
        settle();
      })()),
  };
  // The embedded database has one process, which frees dead workers' locks when it starts.
  if (database.mode !== 'postgres') return handle;
  return withHeartbeats(runtime, handle, workerIds);
}

/** Heartbeats and the sweeper of dead workers' jobs (src/services/workers/heartbeats.ts) for this runner's lifetime. */
async function withHeartbeats(runtime: Runtime, runner: RunnerHandle, workerIds: Set<string>): Promise<RunnerHandle> {
  const { deps, logger } = runtime;
  const proc = thisProcess(`wrk_${randomBase62(16)}`);
  const log = logger.child({ component: 'worker-heartbeat', process_id: proc.processId });
  // A beat or sweep that fails (the database restarting) is retried at the next tick.
  const tick = (what: string, fn: () => Promise<unknown>) => fn().catch((err) => log.warn({ err: String(err) }, `${what} failed`));
  await tick('heartbeat', () => beat(deps.db, proc, [...workerIds]));
  const beating = setInterval(() => void tick('heartbeat', () => beat(deps.db, proc, [...workerIds])), WORKER_BEAT_MS);
  const sweeping = setInterval(
    () =>
      void tick('sweep', async () => {
        const released = await releaseJobsOfDeadWorkers(deps.db);
        if (released.jobs || released.queues) log.warn(released, 'released the jobs of workers that stopped beating');
      }),
    STALE_SWEEP_MS,
  );
  log.info({ pid: proc.pid, workers: [...workerIds] }, 'worker process registered');
  const stop = runner.stop.bind(runner);
  let stopped: Promise<void> | null = null;
  runner.stop = () =>
    (stopped ??= (async () => {
      clearInterval(beating);
      clearInterval(sweeping);
      await stop();
      await forgetProcess(deps.db, proc.processId).catch(() => {});
    })());
  return runner;
}
