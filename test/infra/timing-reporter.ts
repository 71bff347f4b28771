/**
 * Per-file timings for docs/performance.md's CI breakdown: `npx vitest run
 * --reporter=default --reporter=./test/infra/timing-reporter.ts`, written to $TIMING_OUT (default
 * /tmp/vitest-timings.json). Wall-clock start and end per file show how the two forks were packed;
 * vitest's own diagnostics split each file into prepare, collect (imports), setup and tests.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { DURATIONS_FILE } from './duration-sequencer';

type Row = {
  project: string;
  file: string;
  start: number;
  end: number;
  prepare: number;
  collect: number;
  setup: number;
  tests: number;
  count: number;
  failed: string[];
};

export default class TimingReporter implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly rows: Row[] = [];
  private readonly t0 = Date.now();

  // Queued is when a fork picks the file up; collect (imports) follows, then the tests.
  onTestModuleQueued(m: TestModule) {
    this.started.set(m.moduleId, Date.now() - this.t0);
  }

  onTestModuleEnd(m: TestModule) {
    const d = m.diagnostic();
    const tests = [...m.children.allTests()];
    this.rows.push({
      project: m.project.name,
      file: path.relative(process.cwd(), m.moduleId),
      start: this.started.get(m.moduleId) ?? NaN,
      end: Date.now() - this.t0,
      prepare: Math.round(d.prepareDuration),
      collect: Math.round(d.collectDuration),
      setup: Math.round(d.setupDuration),
      tests: Math.round(d.duration),
      count: tests.length,
      failed: tests.filter((t) => t.result().state === 'failed').map((t) => t.fullName),
    });
    this.write(); // after every file too: a run cut short (a loaded machine) still leaves its figures
  }

  private write() {
    const out = process.env.TIMING_OUT ?? '/tmp/vitest-timings.json';
    writeFileSync(out, JSON.stringify({ wallMs: Date.now() - this.t0, files: this.rows }, null, 1));
  }

  onTestRunEnd() {
    this.write();
    if (process.env.UPDATE_TEST_DURATIONS) {
      const spans = Object.fromEntries(
        this.rows
          .map((r) => [`${r.project}:${r.file}`, r.end - r.start] as const)
          .sort((a, b) => a[0].localeCompare(b[0])),
      );
      writeFileSync(path.resolve(DURATIONS_FILE), `${JSON.stringify(spans, null, 1)}\n`);
    }
  }
}
