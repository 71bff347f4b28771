/**
 * Bundles the dashboard (src/dashboard/app, Preact + TSX) with esbuild, as the widget is bundled:
 *   app.js     one ES module, minified (the first screen's only script)
 *   app.css    minified, inlined into the HTML shell so the first paint is styled
 * `npm install` (postinstall) writes them to dist/dashboard/ (git-ignored); the server builds in memory
 * when they are missing or outside production, so a checkout that skipped install scripts still works.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { BUNDLED, REPO_ROOT } from '../repo-root';

export const DASHBOARD_SOURCE_DIR = path.join(REPO_ROOT, 'src', 'dashboard', 'app');
export const DASHBOARD_DIST_DIR = path.join(REPO_ROOT, 'dist', 'dashboard');

export type DashboardBuild = { js: Uint8Array; css: string };

export async function buildDashboard(): Promise<DashboardBuild> {
  const common: BuildOptions & { write: false } = { bundle: true, minify: true, write: false, charset: 'utf8', legalComments: 'none', logLevel: 'silent', target: ['es2020', 'chrome100', 'firefox100', 'safari15'] };
  const [js, css] = await Promise.all([
    build({ ...common, entryPoints: [path.join(DASHBOARD_SOURCE_DIR, 'main.tsx')], format: 'esm', jsx: 'automatic', jsxImportSource: 'preact', define: { 'process.env.NODE_ENV': '"production"' } }),
    build({ ...common, entryPoints: [path.join(DASHBOARD_SOURCE_DIR, 'styles.css')] }),
  ]);
  return { js: js.outputFiles[0]!.contents, css: css.outputFiles[0]!.text };
}

export async function writeDashboardBuild(outDir = DASHBOARD_DIST_DIR): Promise<DashboardBuild> {
  const built = await buildDashboard();
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, 'app.css'), built.css);
  writeFileSync(path.join(outDir, 'app.js'), built.js);
  return built;
}

if (!BUNDLED && process.argv[1] === fileURLToPath(import.meta.url)) {
  const lenient = process.argv.includes('--postinstall');
  writeDashboardBuild().then(
    (b) => console.log(`built dist/dashboard/app.js (${b.js.byteLength} B) and app.css (${b.css.length} B)`),
    (err) => {
      console.error(`dashboard build failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = lenient ? 0 : 1;
    },
  );
}
