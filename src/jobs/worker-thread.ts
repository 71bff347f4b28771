/**
 * The inline worker (`npm start` with WORKER_INLINE, the embedded default) in a worker thread of the
 * web process. Parsing a PDF (pdf.js), deciding OCR, chunking and local embeddings are synchronous
 * JavaScript: run as jobs on the web thread they held HTTP, SSE and voice frames for as long as
 * each step took (the 619-page PDF: up to ~200 ms at a time on a quiet machine, seconds under load;
 * docs/performance.md). Here the whole graphile-worker runner and its tasks run in the thread,
 * the same code `npm run worker` runs (startWorker): the thread opens its own pool to the same
 * database (the embedded one's wire port, or DATABASE_URL), so nothing of a job touches the web
 * loop. Progress is written to the database as before, where SSE and subscriptions read it.
 *
 * Guarantees: job counts and durations reach this process's /metrics (the thread reports each
 * job); stop() stops the runner like startWorker's (running jobs may finish) and ends the thread;
 * if the thread dies on its own, `onExit` is called (the web entry point exits, as when the
 * embedded database's thread dies: the next start releases the jobs it held).
 */
import { Worker } from 'node:worker_threads';
import type { Config } from '../config';
import { recordJob } from '../metrics';
import type { Runtime } from '../context';
import type { WorkerHandle } from './worker-runtime';
import { THREAD_BOOT, threadEntry } from '../repo-root';

/** What the thread starts with (its workerData). */
export type WorkerThreadData = { entry: string; config: Config; connectionString: string; mode: Runtime['database']['mode']; pollInterval?: number };
export type ToWorkerThread = { type: 'stop' };
export type FromWorkerThread =
  | { type: 'started' }
  | { type: 'failed'; error: { name: string; message: string; stack?: string } }
  | { type: 'job'; task: string; outcome: 'ok' | 'error'; seconds: number }
  | { type: 'stopped' };

const ENTRY = threadEntry('src/jobs/worker-thread.worker.ts');

export type WorkerThreadHandle = WorkerHandle & { thread: Worker };

export async function startWorkerThread(
  runtime: Runtime,
  opts: { pollInterval?: number; onExit?: (err: Error) => void } = {},
): Promise<WorkerThreadHandle> {
  const { config, database, logger } = runtime;
  const data: WorkerThreadData = { entry: ENTRY, config, connectionString: database.connectionString, mode: database.mode, pollInterval: opts.pollInterval };
  // stdout/stderr are the process's: the thread's logger writes its lines there itself.
  const thread = new Worker(THREAD_BOOT, { workerData: data });
  let state: 'starting' | 'running' | 'stopping' | 'gone' = 'starting';
  let lastError: Error | null = null;
  let settle = () => {};
  const promise = new Promise<void>((resolve) => (settle = resolve));

  const started = new Promise<void>((resolve, reject) => {
    thread.on('message', (message: FromWorkerThread) => {
      if (message.type === 'job') recordJob(message.task, message.outcome, message.seconds);
      else if (message.type === 'started') resolve();
      else if (message.type === 'failed') reject(Object.assign(new Error(message.error.message), { name: message.error.name, stack: message.error.stack }));
    });
    thread.on('error', (err) => {
      lastError = err;
      reject(err);
    });
    thread.on('exit', (code) => {
      const was = state;
      state = 'gone';
      settle();
      const err = lastError ?? new Error(`inline worker thread exited with code ${code}`);
      reject(err);
      if (was === 'running') {
        logger.error({ err, code }, 'inline worker thread died');
        opts.onExit?.(err);
      }
    });
  });
  try {
    await started;
  } catch (err) {
    await thread.terminate();
    throw err;
  }
  state = 'running';
  logger.debug({ threadId: thread.threadId }, 'inline worker thread started');

  let stopped: Promise<void> | null = null;
  return {
    thread,
    promise,
    stop: () =>
      (stopped ??= (async () => {
        if (state !== 'running') return;
        state = 'stopping';
        // The thread answers 'stopped' once its runner has stopped (running jobs finished) and its pool closed.
        const done = new Promise<void>((resolve) => {
          thread.on('message', (m: FromWorkerThread) => m.type === 'stopped' && resolve());
          thread.once('exit', () => resolve());
        });
        thread.postMessage({ type: 'stop' } satisfies ToWorkerThread);
        await done;
        await thread.terminate();
        settle();
      })()),
  };
}
