/**
 * Orders test files longest first, so the two forks finish together instead of one running the
 * Procfile deployment (~5 min at load) alone at the end. vitest's own order needs its results cache
 * (node_modules/.vite), which a fresh clone (CI) lacks, and falls back to file size, which put
 * several of the longest files near the end. Durations come from test/infra/test-durations.json (a
 * full run's per-file times, refreshed with `UPDATE_TEST_DURATIONS=1 npx vitest run
 * --reporter=default --reporter=./test/infra/timing-reporter.ts`), else from the local cache. Only
 * relative sizes matter. Files in neither (new ones) are given the median, so they neither hold the
 * long ones back nor come last; ties keep vitest's order (larger files first).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Relative to the repository root: vite bundles the config (and this file) into a temporary module. */
export const DURATIONS_FILE = 'test/infra/test-durations.json';

function committed(root: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(path.join(root, DURATIONS_FILE), 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export default class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const known = committed(root);
    const duration = (spec: TestSpecification): number | undefined => {
      const key = `${spec.project.name}:${path.relative(root, spec.moduleId)}`;
      return known[key] ?? this.ctx.cache.getFileTestResults(key)?.duration;
    };
    const bySize = await super.sort(files);
    const rank = new Map(bySize.map((f, i) => [f, i]));
    const knownMs = files.map(duration).filter((d): d is number => d !== undefined).sort((a, b) => a - b);
    const median = knownMs[Math.floor(knownMs.length / 2)] ?? 0;
    const ms = new Map(files.map((f) => [f, duration(f) ?? median]));
    return [...files].sort((a, b) => ms.get(b)! - ms.get(a)! || rank.get(a)! - rank.get(b)!);
  }
}
