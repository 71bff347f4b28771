/**
 * A stopped test run stops the PostgreSQL cluster, the test processes and the browsers it started:
 * by its own signal handlers (SIGTERM, SIGINT, SIGHUP), and by its watchdog when it cannot run any
 * (SIGKILL).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const CHILD = path.join(import.meta.dirname, 'stopped-run.child.ts');
const WATCHDOG = path.join(import.meta.dirname, 'run-watchdog.mjs');
/** Generous: the cleanup takes well under a second on a quiet machine, seconds at load 30. */
const DEADLINE_MS = 60_000;
/** Each test starts a cluster (initdb and a start: over a minute at load 30), then waits for its cleanup. */
const TEST_TIMEOUT_MS = 300_000;

type Started = {
  runDir: string;
  watchdogPid: number;
  clusterDir: string;
  postmasterPid: number;
  testProcessPid: number;
  browserPid: number | null;
  secondCluster: { dir: string; postmasterPid: number } | null;
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

async function until(what: string, done: () => boolean) {
  for (const deadline = Date.now() + DEADLINE_MS; !done(); ) {
    if (Date.now() > deadline) throw new Error(`${what} within ${DEADLINE_MS} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const runs: { child: ChildProcess; started?: Started }[] = [];

// A failed test must not leave its run behind either: clean up as the watchdog would.
afterEach(() => {
  for (const { child, started } of runs.splice(0)) {
    child.kill('SIGKILL');
    if (!started) continue;
    spawnSync(process.execPath, [WATCHDOG, '--now', started.runDir]);
    rmSync(started.runDir, { recursive: true, force: true });
  }
});

async function startRun(args: string[] = []): Promise<{ child: ChildProcess; started: Started }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const run: (typeof runs)[number] = { child };
  runs.push(run);
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const started = await new Promise<Started>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line && out.includes('\n')) resolve(JSON.parse(line) as Started);
    });
    child.once('exit', (code, signal) => reject(new Error(`run exited (${code ?? signal}) before starting:\n${out}\n${err}`)));
  });
  run.started = started;
  return { child, started };
}

async function expectCleanedUp(started: Started) {
  await until('postmaster stopped', () => !alive(started.postmasterPid));
  await until('cluster directory deleted', () => !existsSync(started.clusterDir));
  await until('test process killed', () => !alive(started.testProcessPid));
  if (started.browserPid) await until('browser killed', () => !alive(started.browserPid!));
  const second = started.secondCluster;
  if (second) {
    await until('second postmaster stopped', () => !alive(second.postmasterPid));
    await until('second cluster directory deleted', () => !existsSync(second.dir));
  }
}

describe('a stopped test run', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)('stops its cluster, test processes and browsers on %s', async (signal) => {
    const { child, started } = await startRun(['--browser']);
    expect(alive(started.postmasterPid)).toBe(true);
    expect(alive(started.browserPid!)).toBe(true);
    expect(alive(started.watchdogPid)).toBe(true);
    expect(alive(started.testProcessPid)).toBe(true);

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    // Exits as the signal would have ended it, having cleaned up on the way (the cluster's directory
    // is deleted once the postmaster is gone).
    expect(await exited).toBe(128 + { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[signal]);
    expect(existsSync(started.clusterDir)).toBe(false);
    await expectCleanedUp(started);
    await until('watchdog gone after the run cleaned up', () => !alive(started.watchdogPid) && !existsSync(started.runDir));
  }, TEST_TIMEOUT_MS);

  it('is cleaned up by its watchdog when it is killed outright (SIGKILL, a CI timeout), every cluster it held', async () => {
    const { child, started } = await startRun(['--browser', '--second-cluster']);
    expect(alive(started.secondCluster!.postmasterPid)).toBe(true);
    child.kill('SIGKILL');
    await expectCleanedUp(started);
    await until('watchdog done', () => !alive(started.watchdogPid) && !existsSync(started.runDir));
  }, TEST_TIMEOUT_MS);
});
