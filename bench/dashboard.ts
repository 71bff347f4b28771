/**
 * The dashboard's first-screen cost: the bundle as served (raw, gzip, brotli) against the budget of
 * 100 KB gzipped, and the time to build it with esbuild (what postinstall pays).
 *
 *   npm run bench -- dashboard
 *
 * Exits 1 when the budget is exceeded.
 */
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { buildDashboard } from '../src/dashboard/build-dashboard';

export const FIRST_SCREEN_BUDGET_GZIP = 100 * 1024;

const started = performance.now();
const built = await buildDashboard();
const buildMs = performance.now() - started;
const js = built.js;
const gzip = gzipSync(js, { level: 9 }).byteLength;
const brotli = brotliCompressSync(js).byteLength;
const css = gzipSync(built.css, { level: 9 }).byteLength;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
console.log(`dashboard app.js: ${kb(js.byteLength)} raw, ${kb(gzip)} gzip, ${kb(brotli)} brotli; inline CSS ${kb(css)} gzip`);
console.log(`first screen (JS + CSS, gzip): ${kb(gzip + css)} of a ${kb(FIRST_SCREEN_BUDGET_GZIP)} budget; build ${buildMs.toFixed(0)} ms`);
if (gzip + css > FIRST_SCREEN_BUDGET_GZIP) {
  console.error('over budget');
  process.exitCode = 1;
}
