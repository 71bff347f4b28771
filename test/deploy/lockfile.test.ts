/**
 * A platform build runs `npm ci`, which refuses a lock file that does not match package.json and
 * warns (EBADENGINE) about packages that do not support the Node we declare. These checks fail
 * here instead of on a deploy.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import semver from 'semver';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
type LockEntry = { version?: string; engines?: Record<string, string> | string[]; optional?: boolean; dev?: boolean };
const entries = Object.entries(lock.packages as Record<string, LockEntry>);

// Only package.json and the lock: npm resolves from the lock alone, so a drift shows as an error.
const scratch = mkdtempSync(path.join(tmpdir(), 'gw-lock-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function npmInScratch(args: string[]) {
  copyFileSync(path.join(root, 'package.json'), path.join(scratch, 'package.json'));
  copyFileSync(path.join(root, 'package-lock.json'), path.join(scratch, 'package-lock.json'));
  const run = promisify(execFile);
  const flags = ['--ignore-scripts', '--offline', '--no-audit', '--no-fund'];
  return run('npm', [...args, ...flags], { cwd: scratch, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code ?? 1, output: `${err.stdout}${err.stderr}` }),
  );
}

describe('package-lock.json', () => {
  it('records exactly the dependencies package.json declares, each at a version in its range', () => {
    const root = lock.packages[''];
    expect(root.dependencies).toEqual(pkg.dependencies);
    expect(root.devDependencies).toEqual(pkg.devDependencies);
    expect(root.engines).toEqual(pkg.engines);
    for (const [name, range] of Object.entries<string>({ ...pkg.dependencies, ...pkg.devDependencies })) {
      const locked = lock.packages[`node_modules/${name}`]?.version;
      expect(locked && semver.satisfies(locked, range), `${name}@${locked} is not in ${range}`).toBe(true);
    }
    for (const [name, version] of Object.entries<string>(pkg.overrides ?? {})) {
      const copies = entries.filter(([p]) => p.endsWith(`node_modules/${name}`));
      expect(copies.length, name).toBeGreaterThan(0);
      for (const [p, entry] of copies) expect(entry.version, p).toBe(version);
    }
  });

  it('holds no installed package that rejects the oldest Node package.json declares', () => {
    const oldest = semver.minVersion(pkg.engines.node)!.version;
    const nodeRange = (e: LockEntry) => (e.engines && !Array.isArray(e.engines) ? e.engines.node : undefined);
    const rejecting = entries
      .filter(([, e]) => !e.optional && nodeRange(e) && !semver.satisfies(oldest, nodeRange(e)!, { includePrerelease: true }))
      .map(([p, e]) => `${p}@${e.version} wants node ${nodeRange(e)}`);
    expect(rejecting).toEqual([]);
  });

  it('npm ci accepts it with no engine warning, and npm install leaves it unchanged', async () => {
    const ci = await npmInScratch(['ci', '--dry-run']);
    expect(ci.output).not.toMatch(/EBADENGINE|Missing:|Invalid:/);
    expect(ci.code, ci.output).toBe(0);

    const install = await npmInScratch(['install', '--package-lock-only']);
    expect(install.code, install.output).toBe(0);
    expect(readFileSync(path.join(scratch, 'package-lock.json'), 'utf8')).toBe(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
  });
});
