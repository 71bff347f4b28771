/**
 * Prometheus metrics (prom-client). One registry per process, exported so any module can add its
 * own (e.g. a voice-sessions gauge): `new Gauge({ name, help, registers: [metricsRegistry] })`.
 * Web processes serve it at `GET /metrics` (bearer METRICS_TOKEN); worker processes on METRICS_PORT.
 */
import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export const httpRequestDuration = new Histogram({
  name: 'groundwork_http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern and status, with their latency',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [metricsRegistry],
});

export const retrievalDuration = new Histogram({
  name: 'groundwork_retrieval_duration_seconds',
  help: 'Hybrid retrieval (query embedding, BM25, HNSW, fusion) latency',
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  registers: [metricsRegistry],
});

export const ingestionJobDuration = new Histogram({
  name: 'groundwork_ingestion_job_duration_seconds',
  help: 'Ingestion jobs run by this process, by task and outcome (ok, error)',
  labelNames: ['task', 'outcome'] as const,
  buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  registers: [metricsRegistry],
});

export const ingestionJobs = new Counter({
  name: 'groundwork_ingestion_jobs_total',
  help: 'Ingestion jobs run by this process, by task and outcome (ok, error)',
  labelNames: ['task', 'outcome'] as const,
  registers: [metricsRegistry],
});

/** Counts one finished job; the inline worker's thread sends its jobs here (src/jobs/worker-thread.ts). */
export function recordJob(task: string, outcome: 'ok' | 'error', seconds: number): void {
  const labels = { task, outcome };
  ingestionJobs.inc(labels);
  ingestionJobDuration.observe(labels, seconds);
}

type JobObserver = (task: string, outcome: 'ok' | 'error', seconds: number) => void;
/** Where observeJob reports: this registry, or (in the inline worker's thread) the owner's. */
let jobObserver: JobObserver = recordJob;
export function reportJobsTo(observer: JobObserver): void {
  jobObserver = observer;
}

/** Times a job and counts it by outcome; the error goes on to graphile-worker, which retries. */
export async function observeJob<T>(task: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  let outcome: 'ok' | 'error' = 'error';
  try {
    const result = await run();
    outcome = 'ok';
    return result;
  } finally {
    jobObserver(task, outcome, (performance.now() - started) / 1000);
  }
}

export const voiceSessionsOpen = new Gauge({
  name: 'groundwork_voice_sessions_open',
  help: 'Voice sessions open on this web process (upgraded and not yet ended)',
  registers: [metricsRegistry],
});

export const voiceSessionsEnded = new Counter({
  name: 'groundwork_voice_sessions_ended_total',
  help: 'Voice sessions ended on this web process, by reason: stopped, browser_closed, idle_timeout, a refusal (e.g. too_many_voice_sessions) or an error code',
  labelNames: ['reason'] as const,
  registers: [metricsRegistry],
});

export const voiceSessionDuration = new Histogram({
  name: 'groundwork_voice_session_duration_seconds',
  help: 'Length of the voice sessions that reached ready, from ready to their end',
  buckets: [5, 15, 30, 60, 120, 300, 600],
  registers: [metricsRegistry],
});

/** Connections of the process's pool, labelled with the database kind (embedded or postgres). */
export function observePool(pool: pg.Pool, database: string): void {
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['database'] as const,
      registers: [metricsRegistry],
      collect() {
        this.set({ database }, read());
      },
    });
  gauge('groundwork_db_pool_connections', 'Open connections in the pool', () => pool.totalCount);
  gauge('groundwork_db_pool_idle_connections', 'Idle connections in the pool', () => pool.idleCount);
  gauge('groundwork_db_pool_waiting_requests', 'Queries waiting for a connection', () => pool.waitingCount);
}

/** Queue state read from the database at scrape time, so every web process reports the same queue. */
export function observeQueue(read: () => Promise<{ queued: number; locked: number; oldestQueuedSeconds: number; workerProcesses: number | null }>): void {
  let last: Awaited<ReturnType<typeof read>> | null = null;
  let pending: Promise<void> | null = null;
  // One read per scrape, not one per gauge: prom-client collects the gauges concurrently, so they
  // share the read in flight. Nothing is cached between scrapes (a scrape right after a job ran
  // must not report the queue as it was).
  const refresh = () =>
    (pending ??= read()
      .then((stats) => void (last = stats), () => void (last = null))
      .finally(() => {
        pending = null;
      }));
  const gauge = (name: string, help: string, pick: (s: NonNullable<typeof last>) => number | null) =>
    new Gauge({
      name,
      help,
      registers: [metricsRegistry],
      async collect() {
        await refresh();
        const value = last ? pick(last) : null;
        if (value !== null) this.set(value);
      },
    });
  gauge('groundwork_jobs_queued', 'Jobs waiting to run (not locked by a worker)', (s) => s.queued);
  gauge('groundwork_jobs_running', 'Jobs locked by a worker', (s) => s.locked);
  gauge('groundwork_jobs_oldest_queued_age_seconds', 'Age of the oldest job ready to run and waiting (0 when none)', (s) => s.oldestQueuedSeconds);
  gauge('groundwork_worker_processes', 'Worker processes with a fresh heartbeat (PostgreSQL only)', (s) => s.workerProcesses);
}
