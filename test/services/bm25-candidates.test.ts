/**
 * The BM25 candidate stage's choice of terms (lexical-search.ts): rare terms below a ceiling that
 * does not grow with the KB, and, for a question of common words only, two of its three rarest.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { candidateGenerators, generatorQuery, type QueryTerm } from '../../src/answering/retrieval/lexical-search';
import { RARE_TERM_MAX_DF } from '../../src/answering/calibration';
import { createTestApp, type TestApp } from '../helpers/test-app';

const terms = (...dfs: number[]): QueryTerm[] => dfs.map((df, i) => ({ lexeme: `w${i}`, df, idf: 1 }));
const lexemes = (q: { generators: QueryTerm[] }) => q.generators.map((t) => t.lexeme);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

it('takes the rare terms, with a ceiling that stops growing with the KB', () => {
  // 0.5% of 10,000 chunks is 50: the floor.
  expect(candidateGenerators(terms(40, 70), 10_000)).toEqual({ generators: terms(40), together: false });
  // 0.5% of 40,000 is 200: under the ceiling.
  expect(lexemes(candidateGenerators(terms(150, 200, 260), 40_000))).toEqual(['w0', 'w1']);
  // 0.5% of 200,000 would be 1,000: the ceiling holds at RARE_TERM_MAX_DF.
  expect(RARE_TERM_MAX_DF).toBe(250);
  expect(candidateGenerators(terms(120, 300, 900), 200_000)).toEqual({ generators: terms(120), together: false });
});

it('takes two of the three rarest terms when every term is common, and the rarest alone otherwise', () => {
  const common = candidateGenerators(terms(400, 900, 5_000, 9_000), 200_000);
  expect(common).toEqual({ generators: terms(400, 900, 5_000), together: true });
  expect(generatorQuery(common)).toBe("('w0' & 'w1') | ('w0' & 'w2') | ('w1' & 'w2')");
  expect(generatorQuery(candidateGenerators(terms(400, 900), 200_000))).toBe("'w0' & 'w1'");
  // A single term, or a rarest term under the ceiling (in a small KB), is taken alone.
  expect(candidateGenerators(terms(5_000), 200_000)).toEqual({ generators: terms(5_000), together: false });
  expect(candidateGenerators(terms(80, 120), 2_000)).toEqual({ generators: terms(80), together: false });
});

it('matches in PostgreSQL the chunks holding two of the three terms', async () => {
  const query = generatorQuery({ generators: ['pump', 'valv', 'pressur'].map((lexeme) => ({ lexeme, df: 1_000, idf: 1 })), together: true });
  const texts = ['The pump and its valve', 'Pressure at the valve', 'The pump alone', 'Pressure, pumps and valves', 'Nothing here'];
  const { rows } = await sql<{ text: string; hit: boolean }>`
    select text, to_tsvector('english', text) @@ ${query}::tsquery as hit from unnest(${texts}::text[]) as text`.execute(t.deps.db);
  expect(rows.filter((r) => r.hit).map((r) => r.text)).toEqual(['The pump and its valve', 'Pressure at the valve', 'Pressure, pumps and valves']);
});
