/**
 * Crawl include/exclude globs are bounded before they reach minimatch: six globs of twenty `{a,b}`
 * groups (2^20 patterns each) used to stall the whole server 11.7 s. Generated patterns are either
 * refused with a reason or compile and match quickly; the reported request is a 400.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePathFilter, GLOB_LIMITS, pathGlobProblem } from '../../src/ingest/crawl/site-scope';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { cpuMsOf } from '../infra/cpu-time';

let t: TestApp;
let apiKey: string;
let kbId: string;
beforeAll(async () => {
  t = await createTestApp({ env: { CRAWL_ALLOW_PRIVATE: 'true' } });
  ({ api_key: apiKey } = await createOrgWithKey(t.deps));
  kbId = (await restClient(t.app, apiKey).post('/api/kbs', { name: 'globs' })).body.kb.id;
});
afterAll(() => t?.close());

const braces = (groups: number) => `/${'{a,b}'.repeat(groups)}/**`;

describe('crawl glob bounds', () => {
  it('refuses the reported brace-expansion stall with a 400 naming the field', async () => {
    const res = await restClient(t.app, apiKey).post('/api/ingest/url', {
      url: 'http://127.0.0.1:9/',
      kb_id: kbId,
      include: Array(6).fill(braces(20)),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_input', field: 'include.0' });
    expect(res.body.error.message).toMatch(/expands to more than 64/);
  });

  it('refuses ranges, too many globstars, too long and too many patterns', () => {
    expect(pathGlobProblem('/docs/{1..100000}')).toMatch(/range/);
    expect(pathGlobProblem('/**/**/**/**/**/x')).toMatch(/\*\*/);
    expect(pathGlobProblem(`/${'a'.repeat(GLOB_LIMITS.maxLength)}`)).toMatch(/longer/);
    expect(pathGlobProblem(braces(6))).toBeNull(); // 64 patterns: allowed
    expect(pathGlobProblem(braces(7))).toMatch(/expands/);
    expect(pathGlobProblem('/{a,{b,c},{d,{e,f}}}/{x,y}')).toBeNull();
  });

  it('any generated pattern is refused, or compiles and matches quickly', () => {
    const glob = fc
      .array(fc.constantFrom('{', '}', ',', 'a', 'b', '*', '**', '/', '.', '?', '[a-z]', '\\', '{a,b}', '+(a|b)', '!(x)'), { maxLength: 80 })
      .map((parts) => parts.join(''))
      .filter((p) => p.length > 0);
    fc.assert(
      fc.property(fc.array(glob, { minLength: 1, maxLength: 6 }), fc.string({ maxLength: 60 }), (patterns, path) => {
        if (patterns.some((p) => pathGlobProblem(p))) return;
        // Backtracking blow-ups take minutes of CPU; a safe pattern takes milliseconds.
        const { cpuMs } = cpuMsOf(() => {
          const matches = compilePathFilter(patterns, patterns);
          matches(new URL(`http://example.com/${encodeURIComponent(path).replace(/%2F/g, '/')}`));
        });
        expect(cpuMs).toBeLessThan(5_000);
      }),
      { numRuns: 300 },
    );
  });

  it('compilePathFilter refuses an unsafe pattern that got past validation instead of stalling', () => {
    expect(() => compilePathFilter([braces(20)])).toThrow(/expands/);
  });
});
