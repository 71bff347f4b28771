/**
 * A worker thread kept for reuse, doing one job at a time: a new thread compiles pdf.js afresh, so the
 * PDF threads (pdf-parse-thread.ts, pdf-pages-thread.ts) start on first use and end after a minute
 * idle. A caller that finds the thread busy does the work itself, so there is never a queue here.
 */
import { Worker } from 'node:worker_threads';
import { THREAD_BOOT } from '../repo-root';

const IDLE_MS = 60_000;

type Running<Out> = {
  thread: Worker;
  busy: boolean;
  idle: NodeJS.Timeout | null;
  onMessage: ((message: Out) => void) | null;
  onExit: (() => void) | null;
};

/** One job's hold on the thread: what it posts is stamped with the job's `id`, and only messages carrying it reach the job. */
export type ThreadLease<In extends { id: number }> = {
  post(message: Omit<In, 'id'>): void;
  /** The job is over and the thread finished it: it waits for the next (ended after a minute idle). */
  release(): void;
  /** The job is over but the thread may still be at it, and cannot be interrupted mid-job: end it. */
  end(): Promise<void>;
};

export type LeaseHandlers<Out> = {
  /** A message of this job. */
  onMessage(message: Out): void;
  /** The thread ended (or failed to start) while the job held it. */
  onExit(): void;
};

export class SharedThread<In extends { id: number }, Out extends { id: number }> {
  private running: Running<Out> | null = null;
  private jobs = 0;

  /** `entry`: the thread's module, from threadEntry(). */
  constructor(private readonly entry: string) {}

  /** The thread for one job, or null while it is busy with another. */
  lease(handlers: LeaseHandlers<Out>): ThreadLease<In> | null {
    if (this.running?.busy) return null;
    const running = (this.running ??= this.start());
    const id = ++this.jobs;
    running.busy = true;
    if (running.idle) clearTimeout(running.idle);
    running.idle = null;
    running.thread.ref();
    running.onMessage = (message) => {
      if (message.id === id) handlers.onMessage(message);
    };
    running.onExit = () => handlers.onExit();

    let over = false;
    const close = (): boolean => {
      if (over) return false;
      over = true;
      running.onMessage = null;
      running.onExit = null;
      return true;
    };
    return {
      post: (message) => running.thread.postMessage({ ...message, id }),
      release: () => {
        if (!close()) return;
        running.busy = false;
        running.thread.unref();
        running.idle = setTimeout(() => void running.thread.terminate(), IDLE_MS);
        running.idle.unref();
      },
      end: async () => {
        if (!close()) return;
        if (this.running === running) this.running = null;
        await running.thread.terminate();
      },
    };
  }

  private start(): Running<Out> {
    const started: Running<Out> = { thread: new Worker(THREAD_BOOT, { workerData: { entry: this.entry } }), busy: false, idle: null, onMessage: null, onExit: null };
    started.thread.on('message', (message: Out) => started.onMessage?.(message));
    // A job in flight learns of a failure from 'exit', which follows.
    started.thread.on('error', () => {});
    started.thread.on('exit', () => {
      if (this.running === started) this.running = null;
      if (started.idle) clearTimeout(started.idle);
      started.onExit?.();
    });
    return started;
  }
}
