/**
 * A test run in miniature for stopped-run-cleanup.test.ts: the guard and cluster global setup
 * starts, a stand-in for one of vitest's test processes (inheriting the environment, outliving
 * this process as they outlive a signalled vitest) and, when asked, a stand-in for Chromium
 * (detached, as playwright starts it, with only the run's marker to know it by). Prints what it
 * started as one JSON line, then waits to be stopped.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { guardTestRun, runMarker, startGuardedCluster } from './run-cleanup';

const guard = guardTestRun();
const cluster = await startGuardedCluster();
const postmasterPid = Number(readFileSync(path.join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
const idle = ['-e', 'setInterval(() => {}, 60_000)'];
const testProcess = spawn(process.execPath, idle, { stdio: 'ignore' });
testProcess.unref();
let browserPid: number | null = null;
if (process.argv.includes('--browser')) {
  const browser = spawn(process.execPath, [...idle, '--', runMarker()!], { detached: true, stdio: 'ignore', env: {} });
  browser.unref();
  browserPid = browser.pid!;
}
const started = { runDir: guard.dir, watchdogPid: guard.watchdogPid, clusterDir: cluster.dir, postmasterPid, testProcessPid: testProcess.pid!, browserPid };
console.log(JSON.stringify(started));
setInterval(() => {}, 60_000);
