/** Starts the server as a child process, as `npm start` would (the bundle, src/app-bundle/launch.mjs), and measures its start-up. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

export type StartedServer = { child: ChildProcess; url: string; apiKey: string | null; startupMs: number; output: () => string; stop: () => Promise<void> };

/**
 * The variables `npm start` sets before node (package.json: glibc's malloc settings), so a server
 * started here allocates as one started by `npm start`.
 */
export function startScriptEnv(): Record<string, string> {
  const script = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const env: Record<string, string> = {};
  for (const word of script.split(/\s+/)) {
    const m = word.match(/^([A-Z_][A-Z0-9_]*)=(.*)$/);
    if (!m) break;
    env[m[1]!] = m[2]!;
  }
  return env;
}

export async function startServer(env: Record<string, string>): Promise<StartedServer> {
  const started = performance.now();
  const child = spawn(process.execPath, ['src/app-bundle/launch.mjs', 'server'], {
    cwd: ROOT,
    env: { ...process.env, ...startScriptEnv(), PORT: '0', LOG_LEVEL: 'warn', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 300_000);
    child.stdout!.on('data', () => {
      const m = out.match(/listening on (http:\/\/[\d.]+:\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}:\n${out}`)));
  });
  return {
    child,
    url,
    apiKey: out.match(/API key:\s+(gw_[0-9A-Za-z]{40})/)?.[1] ?? null,
    startupMs: performance.now() - started,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Resident memory of a process in MB (Linux). */
export function rssMb(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return m ? Number(m[1]) / 1024 : NaN;
}
