/**
 * `npm start`, `npm run worker` and `npm run cli` run the bundle src/app-bundle/launch.mjs builds. Here
 * the launcher runs in a checkout of its own (a few small sources beside it, this repository's
 * node_modules linked), so editing those sources cannot disturb the servers other test files start.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const checkout = mkdtempSync(path.join(tmpdir(), 'gw-bundle-'));
afterAll(() => rmSync(checkout, { recursive: true, force: true }));

function write(relative: string, text: string) {
  const file = path.join(checkout, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

for (const file of ['src/app-bundle/launch.mjs', 'src/repo-root.ts']) {
  mkdirSync(path.dirname(path.join(checkout, file)), { recursive: true });
  copyFileSync(path.join(ROOT, file), path.join(checkout, file));
}
symlinkSync(path.join(ROOT, 'node_modules'), path.join(checkout, 'node_modules'));
write('package.json', '{ "type": "module" }\n');
write('tsconfig.json', '{}\n');
write('src/greeting.ts', "export const greeting: string = 'one';\n");
write(
  'src/server.ts',
  [
    "import { greeting } from './greeting';",
    "import { BUNDLED, REPO_ROOT, threadEntry } from './repo-root';",
    "console.log(JSON.stringify({ greeting, args: process.argv.slice(2), BUNDLED, REPO_ROOT, thread: threadEntry('src/jobs/worker-thread.worker.ts') }));",
    '',
  ].join('\n'),
);
for (const entry of ['src/worker.ts', 'src/cli.ts', 'db/embedded/database-thread.worker.ts', 'src/jobs/worker-thread.worker.ts', 'src/ingest/pdf-pages.worker.ts', 'src/ingest/pdf-parse.worker.ts', 'src/ingest/chunk.worker.ts', 'db/embedded/build-template.ts']) {
  write(entry, 'export {};\n');
}

async function launch(...args: string[]) {
  return promisify(execFile)(process.execPath, ['src/app-bundle/launch.mjs', ...args], { cwd: checkout, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code ?? 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' }),
  );
}

const bundleMtime = () => statSync(path.join(checkout, 'dist/app/server.mjs')).mtimeMs;

describe('the bundle npm start runs (src/app-bundle/launch.mjs)', () => {
  it('builds on the first start and runs the entry with its own arguments, knowing it is bundled', async () => {
    const run = await launch('server', '--flag', 'value');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      greeting: 'one',
      args: ['--flag', 'value'],
      BUNDLED: true,
      REPO_ROOT: `${checkout}/`,
      thread: `file://${checkout}/dist/app/worker-thread.worker.mjs`,
    });
  });

  it('reuses the bundle while no source changed, and rebuilds it after an edit to any file it imports', async () => {
    const built = bundleMtime();
    expect((await launch('server')).code).toBe(0);
    expect(bundleMtime()).toBe(built);

    write('src/greeting.ts', "export const greeting: string = 'two';\n");
    const run = await launch('server');
    expect(JSON.parse(run.stdout).greeting).toBe('two');
    expect(bundleMtime()).toBeGreaterThan(built);
  });

  it('refuses to start on a source that does not compile, naming it, and keeps the last bundle', async () => {
    const before = readFileSync(path.join(checkout, 'dist/app/server.mjs'), 'utf8');
    write('src/greeting.ts', "export const greeting: string = 'three\n");
    const run = await launch('server');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/src\/greeting\.ts/);
    expect(run.stderr).toMatch(/could not build dist\/app from the sources/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(path.join(checkout, 'dist/app/server.mjs'), 'utf8')).toBe(before);
  });

  it('names the commands it knows on anything else', async () => {
    const run = await launch('serve');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/usage: node src\/app-bundle\/launch\.mjs server\|worker\|cli/);
  });

  it('marks source runs as not bundled: tsx and vitest load src/repo-root.ts itself', async () => {
    const { BUNDLED, REPO_ROOT, threadEntry } = await import('../../src/repo-root');
    expect(BUNDLED).toBe(false);
    expect(REPO_ROOT).toBe(`${ROOT}/`);
    expect(threadEntry('src/jobs/worker-thread.worker.ts')).toBe(`file://${ROOT}/src/jobs/worker-thread.worker.ts`);
  });
});
