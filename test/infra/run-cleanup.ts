/**
 * A stopped test run stops what it started. The run (vitest's main process, where global setup
 * runs) gets a run directory naming what to clean up: its PostgreSQL cluster, and every process
 * started with GW_TEST_RUN_DIR in its environment (vitest's test processes, which outlive a
 * signalled vitest, and what they spawn) or the run's marker on its command line (Chromium, whose
 * environment playwright may replace). The run:
 * - on exit, SIGINT, SIGTERM and SIGHUP, cleans up synchronously before it goes;
 * - a detached watchdog (run-watchdog.mjs) watches its pid and cleans up when it dies any other
 *   way (SIGKILL, a CI timeout killing it, a crash), then exits; it also exits, doing nothing, once
 *   the run removes the directory after its own teardown.
 * GW_TEST_RUN_DIR is set here, before vitest forks its test processes, so they all inherit it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startThrowawayCluster, type Cluster } from './postgres-cluster';

const WATCHDOG = path.join(import.meta.dirname, 'run-watchdog.mjs');
const RUN_DIR_ENV = 'GW_TEST_RUN_DIR';
const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

export type RunGuard = {
  dir: string;
  /** The watchdog's pid (for tests of it). */
  watchdogPid: number;
  /** Records a cluster (before it exists) so that a stopped run stops it and deletes its directory; a run may hold several. */
  holdCluster(dirs: { dir: string; dataDir: string }): void;
  /** After a normal teardown: kills what is left and removes the run directory (the watchdog then exits). */
  release(): void;
};

const GUARD = Symbol.for('groundwork.test.run-guard');
type WithGuard = typeof globalThis & { [GUARD]?: RunGuard };

/** The command-line switch that marks a process as this run's (Chromium ignores unknown switches). */
export function runMarker(): string | null {
  const dir = process.env[RUN_DIR_ENV];
  return dir ? `--gw-test-run=${path.basename(dir)}` : null;
}

/** One guard per process: both vitest projects' global setups share it. */
export function guardTestRun(): RunGuard {
  const g = globalThis as WithGuard;
  return (g[GUARD] ??= createGuard());
}

function createGuard(): RunGuard {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-test-run-'));
  process.env[RUN_DIR_ENV] = dir;
  const watchdog = spawn(process.execPath, [WATCHDOG, String(process.pid), dir], { detached: true, stdio: 'ignore' });
  watchdog.unref();

  let done = false;
  const cleanUp = (mode: '--now' | '--teardown') => {
    if (done) return;
    done = true;
    // The watchdog's own code, run to completion before this process goes (exit handlers cannot wait on anything asynchronous).
    spawnSync(process.execPath, [WATCHDOG, mode, dir], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', () => cleanUp('--now'));
  for (const [name, number] of Object.entries(SIGNALS)) {
    process.once(name, () => {
      cleanUp('--now');
      // vitest's own SIGINT/SIGTERM handlers exit after printing; where nobody else listens, exit
      // as the signal would have (128 + its number).
      if (process.listenerCount(name) === 0) process.exit(128 + number);
    });
  }

  return {
    dir,
    watchdogPid: watchdog.pid!,
    holdCluster(dirs) {
      writeFileSync(path.join(dir, `cluster-${path.basename(dirs.dir)}.json`), JSON.stringify(dirs));
    },
    release: () => cleanUp('--teardown'),
  };
}

/**
 * A throwaway cluster stopped and deleted however this process ends: the test run's, as global
 * setup starts it, and a benchmark's (bench/: a bench stopped with Ctrl-C or SIGTERM stops its
 * clusters as a test run does).
 */
export async function startGuardedCluster(): Promise<Cluster> {
  const guard = guardTestRun();
  return startThrowawayCluster({ onCreated: guard.holdCluster });
}
