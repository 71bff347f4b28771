/**
 * A test run in miniature for stopped-run-cleanup.test.ts: the guard and cluster global setup
 * starts, a stand-in for one of vitest's test processes (inheriting the environment, outliving
 * this process as they outlive a signalled vitest) and, when asked, a stand-in for Chromium
 * (detached, as playwright starts it, with only the run's marker to know it by), and when asked a
 * second cluster (as a benchmark with two databases holds them). Prints what it
 * started as one JSON line, then waits to be stopped.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { guardTestRun, runMarker, startGuardedCluster } from './run-cleanup';

const guard = guardTestRun();
const cluster = await startGuardedCluster();
const postmasterOf = (dataDir: string) => Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
const postmasterPid = postmasterOf(cluster.dataDir);
const second = process.argv.includes('--second-cluster') ? await startGuardedCluster() : null;
const idle = ['-e', 'setInterval(() => {}, 60_000)'];
const testProcess = spawn(process.execPath, idle, { stdio: 'ignore' });
testProcess.unref();
let browserPid: number | null = null;
if (process.argv.includes('--browser')) {
  const browser = spawn(process.execPath, [...idle, '--', runMarker()!], { detached: true, stdio: 'ignore', env: {} });
  browser.unref();
  browserPid = browser.pid!;
}
const started = {
  runDir: guard.dir,
  watchdogPid: guard.watchdogPid,
  clusterDir: cluster.dir,
  postmasterPid,
  testProcessPid: testProcess.pid!,
  browserPid,
  secondCluster: second && { dir: second.dir, postmasterPid: postmasterOf(second.dataDir) },
};
console.log(JSON.stringify(started));
setInterval(() => {}, 60_000);
