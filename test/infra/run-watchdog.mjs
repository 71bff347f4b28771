/**
 * Cleans up what a test run started once the run is gone, however it went: the PostgreSQL clusters
 * held in the run directory's cluster-*.json (postmaster stopped, its directory deleted), and every
 * process carrying the run in its environment (GW_TEST_RUN_DIR: vitest's test processes and what
 * they spawned) or its marker on its command line (the Chromiums tests launched), each killed with
 * its process group.
 *
 *   node run-watchdog.mjs <pid> <run-dir>   watch <pid>; clean up when it dies, exit quietly when
 *                                           the run directory disappears (the run cleaned up itself)
 *   node run-watchdog.mjs --now <run-dir>   clean up at once (a run's exit and signal handlers)
 *   node run-watchdog.mjs --teardown <run-dir>   the same after a normal teardown, sparing vitest's test processes
 *
 * Plain JavaScript with no imports of ours: it starts in a few tens of ms without a TypeScript
 * loader, and outlives the process that started it (a SIGKILL or a CI timeout leaves no handler
 * to run in the run itself).
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const POLL_MS = 200;
const POSTMASTER_QUIT_MS = 10_000;

export const runMarker = (runDir) => `--gw-test-run=${path.basename(runDir)}`;

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
};

const signal = (pid, sig) => {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
};

/** Blocks without spinning: usable from an exit handler, where nothing asynchronous runs. */
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function postmasterPid(dataDir) {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Every process but this one and the one that asked for the cleanup, with its argv and environment. */
function* processes() {
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid || pid === process.ppid) continue;
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      yield { pid, argv, env };
    } catch {
      // gone, or not ours to read
    }
  }
}

/** A detached process (Chromium, as playwright starts it) leads a process group holding its children. */
const kill = (pid) => {
  signal(-pid, 'SIGKILL');
  signal(pid, 'SIGKILL');
};

/**
 * SIGQUIT is PostgreSQL's immediate shutdown (`pg_ctl stop -m immediate`); SIGKILL if it hangs.
 * The directory is recorded before initdb runs: a run stopped while starting its cluster leaves
 * an initdb or pg_ctl behind instead of a postmaster, found by the directory in its arguments.
 */
function stopClusters(runDir) {
  if (!existsSync(runDir)) return;
  for (const name of readdirSync(runDir)) if (/^cluster-.*\.json$/.test(name)) stopCluster(path.join(runDir, name));
}

function stopCluster(file) {
  const { dir, dataDir } = JSON.parse(readFileSync(file, 'utf8'));
  const pid = postmasterPid(dataDir);
  if (pid !== null) {
    signal(pid, 'SIGQUIT');
    for (const until = Date.now() + POSTMASTER_QUIT_MS; alive(pid) && Date.now() < until; ) pause(50);
  }
  for (const p of processes()) if (p.argv.some((a) => a.includes(dir))) kill(p.pid);
  rmSync(dir, { recursive: true, force: true });
  rmSync(file, { force: true });
}

/**
 * vitest's test processes outlive a vitest stopped by a signal; they and what they spawned carry
 * the run in their environment. After a normal teardown only the marked browsers are killed:
 * vitest may still be closing its test processes then, and one killed under it crashes vitest.
 */
function killRunProcesses(runDir, { all }) {
  const marker = runMarker(runDir);
  const env = `GW_TEST_RUN_DIR=${runDir}`;
  for (const p of processes()) if (p.argv.includes(marker) || (all && p.env.includes(env))) kill(p.pid);
}

export function cleanUpRun(runDir, { all = true } = {}) {
  try {
    stopClusters(runDir);
  } finally {
    killRunProcesses(runDir, { all });
  }
}

function watch(pid, runDir) {
  const timer = setInterval(() => {
    if (!existsSync(runDir)) {
      clearInterval(timer);
      return;
    }
    if (alive(pid)) return;
    clearInterval(timer);
    try {
      cleanUpRun(runDir);
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  }, POLL_MS);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const [first, second] = process.argv.slice(2);
  if (first === '--now') cleanUpRun(second);
  else if (first === '--teardown') cleanUpRun(second, { all: false });
  else watch(Number(first), second);
}
