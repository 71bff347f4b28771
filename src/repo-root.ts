/**
 * Where the checkout is, whether this code runs from source (tsx, vitest) or from the bundle that
 * `npm start`, `npm run worker` and `npm run cli` run (dist/app, built by src/app-bundle/launch.mjs).
 * In the bundle every module's `import.meta.url` is the bundle file's, so paths relative to a
 * source file are taken from the checkout's root instead.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Replaced by `true` in the bundle (esbuild's `define`); never declared anywhere else.
declare const __GW_BUNDLED__: boolean | undefined;

export const BUNDLED = typeof __GW_BUNDLED__ !== 'undefined';

/** From a file of dist/app in the bundle, from src/repo-root.ts itself from source. */
export const REPO_ROOT = fileURLToPath(new URL(BUNDLED ? '../../' : '../', import.meta.url));

/** A file of the checkout, by its path from the root. */
export function repoFile(relative: string): string {
  return path.join(REPO_ROOT, relative);
}

/**
 * A worker thread's entry: its TypeScript source from source, its bundled file in the bundle.
 * `source` is relative to the checkout's root; the bundle names each entry by its file's name.
 */
export function threadEntry(source: string): string {
  const file = BUNDLED ? path.join(REPO_ROOT, 'dist', 'app', `${path.basename(source, '.ts')}.mjs`) : repoFile(source);
  return pathToFileURL(file).href;
}

/** The boot file every thread starts from: it registers tsx first when the entry is TypeScript. */
export const THREAD_BOOT = pathToFileURL(repoFile('db/embedded/database-thread.boot.mjs'));
