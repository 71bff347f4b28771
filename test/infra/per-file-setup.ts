/**
 * Runs before each test file. Files on the shared worker threads (vitest.config.ts) share one
 * fetch connection pool with the files before them: a keep-alive socket to a server a previous file
 * closed, on a port the OS has since handed to this file's server, would carry this file's request
 * to the old one. Each file there starts with a fresh pool, as it would in its own process.
 */
import { isMainThread } from 'node:worker_threads';
import { afterAll } from 'vitest';

const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');
type Dispatcher = { constructor: new () => Dispatcher; destroy(): Promise<void> };
type WithDispatcher = typeof globalThis & { [GLOBAL_DISPATCHER]?: Dispatcher };

if (!isMainThread) {
  afterAll(async () => {
    const g = globalThis as WithDispatcher;
    const used = g[GLOBAL_DISPATCHER];
    if (!used) return;
    g[GLOBAL_DISPATCHER] = new used.constructor();
    await used.destroy().catch(() => undefined);
  });
}
