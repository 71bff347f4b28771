/**
 * A throwaway PostgreSQL cluster for the test run: initdb in a temp dir, started on a free loopback
 * port with durability off (tests never need it), stopped and deleted afterwards.
 * Runs as the `postgres` system user when we are root, because initdb refuses to run as root.
 *
 * Stopping and starting the server while the test's own servers run (restart, stopServer,
 * startServer) is asynchronous: a spawnSync would block the event loop those servers need, and a
 * fast shutdown waits for them to notice their connections dropped.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function runAsPostgres(cmd: string, args: string[]) {
  const asRoot = process.getuid?.() === 0;
  const [bin, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  const res = spawnSync(bin, argv, { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`${cmd} failed (${res.status}): ${res.stderr || res.stdout}`);
  return res.stdout;
}

/** As runAsPostgres, without blocking this process; killed (and rejected) after timeoutMs. */
function runAsPostgresAsync(cmd: string, args: string[], timeoutMs = 60_000): Promise<void> {
  const asRoot = process.getuid?.() === 0;
  const [bin, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  return new Promise((resolve, reject) => {
    const child = spawn(bin, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.join(' ')} failed (${code ?? signal}): ${out}`));
    });
  });
}

function ownByPostgres(dir: string) {
  if (process.getuid?.() !== 0) return;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  chownSync(dir, uid, gid);
}

export type Cluster = {
  url: string;
  /** The cluster's directory (socket, log) and its data directory inside it (postmaster.pid). */
  dir: string;
  dataDir: string;
  /** Immediate shutdown, and the directory deleted (or kept, for a kept cluster). */
  stop: () => void;
  /** A fast shutdown (every connection dropped) and a start again on the same port. */
  restart: () => Promise<void>;
  /** Fast shutdown: sessions are terminated (57P01), new connections refused until startServer. */
  stopServer: () => Promise<void>;
  startServer: () => Promise<void>;
};

/** `onCreated` learns the directory before initdb runs, so a caller can delete it however this ends. */
export async function startThrowawayCluster(opts: { onCreated?: (dirs: { dir: string; dataDir: string }) => void } = {}): Promise<Cluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-pg-'));
  opts.onCreated?.({ dir, dataDir: path.join(dir, 'data') });
  ownByPostgres(dir);
  return startCluster(dir, await freePort(), { keep: false });
}

/**
 * A cluster kept in `dir` between runs (benchmarks build a large KB once, then measure it in later
 * runs): created there on first use, started on `port`, and only stopped (not deleted) by stop().
 */
export async function startKeptCluster(dir: string, port = 54329): Promise<Cluster> {
  mkdirSync(dir, { recursive: true });
  ownByPostgres(dir);
  return startCluster(dir, port, { keep: true });
}

async function startCluster(dir: string, port: number, opts: { keep: boolean }): Promise<Cluster> {
  const dataDir = path.join(dir, 'data');
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    runAsPostgres(path.join(PG_BIN, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync']);
  }
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=300',
    // A kept cluster holds a benchmark's large KB: 200,000 chunks are 1.4 GB, their HNSW index
    // 519 MB. Sized as a production server would be (the index in shared buffers), not as the
    // tests' small throwaway clusters: at 256 MB the 200,000-chunk search ran ~7% fewer retrievals/s
    // (docs/scaling.md). Pages are only allocated as they are used.
    `-c shared_buffers=${opts.keep ? '2GB' : '256MB'}`,
  ].join(' ');
  const pgCtl = path.join(PG_BIN, 'pg_ctl');
  const startArgs = ['-D', dataDir, '-o', options, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start'];
  const running = () => {
    try {
      runAsPostgres(pgCtl, ['-D', dataDir, 'status']);
      return true;
    } catch {
      return false;
    }
  };
  if (!(opts.keep && running())) runAsPostgres(pgCtl, startArgs);
  const stopServer = () => runAsPostgresAsync(pgCtl, ['-D', dataDir, '-m', 'fast', '-w', '-t', '30', 'stop']);
  const startServer = () => runAsPostgresAsync(pgCtl, startArgs);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dir,
    dataDir,
    stopServer,
    startServer,
    async restart() {
      await stopServer();
      await startServer();
    },
    stop() {
      try {
        runAsPostgres(pgCtl, ['-D', dataDir, '-m', opts.keep ? 'fast' : 'immediate', '-w', 'stop']);
      } finally {
        if (!opts.keep) rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
