/**
 * graphile-worker 0.16 on the embedded database, through the wire server like in production: the
 * real worker loop, job pickup driven by LISTEN/NOTIFY (polling is pushed out to 60 s, so a job
 * that runs promptly proves the notification reached the worker's listening connection).
 */
import { EventEmitter } from 'node:events';
import pg from 'pg';
import {
  Logger,
  makeWorkerUtils,
  run,
  type Runner,
  type Task,
  type WorkerEvents,
  type WorkerUtils,
} from 'graphile-worker';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../db/embedded/open-embedded';

const silent = new Logger(() => () => {});

let embedded: EmbeddedDatabase;
let pool: pg.Pool;
let utils: WorkerUtils;
let runner: Runner;
const events: WorkerEvents = new EventEmitter();
const concurrency = 4;

/** Resolves once `n` workers found no job and went to sleep until nudged (or polled, in 60 s). */
function workersIdle(n: number): Promise<void> {
  return new Promise((resolve) => {
    let left = n;
    const onEmpty = () => {
      if (--left > 0) return;
      events.off('worker:getJob:empty', onEmpty);
      resolve();
    };
    events.on('worker:getJob:empty', onEmpty);
  });
}

const probeStarted = new Map<number, () => void>();
const noopRuns = new Map<number, number>();
let noopTarget = 0;
let noopAllDone: (() => void) | null = null;

const probe: Task = async (payload) => {
  probeStarted.get((payload as { k: number }).k)?.();
};
const noop: Task = async (payload) => {
  const { i } = payload as { i: number };
  noopRuns.set(i, (noopRuns.get(i) ?? 0) + 1);
  if (noopRuns.size === noopTarget) noopAllDone?.();
};

beforeAll(async () => {
  embedded = await openEmbeddedDatabase({ dataDir: null });
  pool = new pg.Pool({ connectionString: embedded.connectionString, max: 10 });
  utils = await makeWorkerUtils({ pgPool: pool, logger: silent, noPreparedStatements: true });
  await utils.migrate();
  const allIdle = workersIdle(concurrency);
  runner = await run({
    pgPool: pool,
    noPreparedStatements: true,
    pollInterval: 60_000,
    concurrency,
    logger: silent,
    events,
    taskList: { probe, noop },
  });
  await allIdle;
  // run() resolves before its LISTEN has executed; jobs added earlier would wait for the poll.
  const deadline = Date.now() + 5000;
  while (!(await pool.query(`select 1 from pg_listening_channels() c where c = 'jobs:insert'`)).rowCount) {
    if (Date.now() > deadline) throw new Error('graphile-worker never LISTENed on jobs:insert');
    await new Promise((r) => setTimeout(r, 20));
  }
});

afterAll(async () => {
  await runner?.stop();
  await utils?.release();
  await pool?.end();
  await embedded?.close();
});

it('picks up a new job through NOTIFY well before its 60 s poll interval', async () => {
  const latencies: number[] = [];
  for (let k = 0; k < 10; k++) {
    // The worker that ran the previous probe looks for more work right away; wait until it has
    // gone to sleep, or it would pick the next job up without any notification.
    const idleAgain = workersIdle(1);
    const started = new Promise<void>((resolve) => probeStarted.set(k, resolve));
    const t0 = performance.now();
    await utils.addJob('probe', { k });
    await Promise.race([started, new Promise((_, reject) => setTimeout(() => reject(new Error(`job ${k} not picked up in 2 s`)), 2000))]);
    latencies.push(performance.now() - t0);
    await idleAgain;
  }
  latencies.sort((a, b) => a - b);
  console.log(`[graphile-worker] addJob -> task start ms: median ${latencies[5]!.toFixed(1)}, max ${latencies.at(-1)!.toFixed(1)}`);
  expect(latencies.at(-1)).toBeLessThan(2000);
});

it('runs 300 jobs exactly once each and reports throughput', async () => {
  const total = 300;
  noopTarget = total;
  const allDone = new Promise<void>((resolve) => (noopAllDone = resolve));
  const t0 = performance.now();
  await Promise.all(Array.from({ length: total }, (_, i) => utils.addJob('noop', { i })));
  const added = performance.now();
  await Promise.race([allDone, new Promise((_, reject) => setTimeout(() => reject(new Error(`only ${noopRuns.size}/${total} jobs ran`)), 30_000))]);
  const done = performance.now();
  // Let any duplicate run surface before counting.
  await new Promise((r) => setTimeout(r, 200));

  const seconds = (done - t0) / 1000;
  console.log(
    `[graphile-worker] ${total} jobs: added in ${(added - t0).toFixed(0)} ms, all done after ${(done - t0).toFixed(0)} ms = ${(total / seconds).toFixed(0)} jobs/s (concurrency ${concurrency})`,
  );
  expect(noopRuns.size).toBe(total);
  expect([...noopRuns.values()].every((n) => n === 1)).toBe(true);
  const { rows } = await pool.query<{ n: number }>('select count(*)::int as n from graphile_worker._private_jobs');
  expect(rows[0]!.n).toBe(0);
});
