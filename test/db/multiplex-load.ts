/**
 * The load that exposed the stock pglite-socket multiplexer (electric-sql/pglite#1046): many
 * connections, parameterized queries whose SQL text and parameter count differ, some carrying a
 * ~300 KB parameter that reaches the server in several TCP chunks. Every query returns its own
 * number from both its SQL text and its parameters, so running another connection's statement, or
 * binding to it, shows up as a wrong row instead of passing unnoticed.
 */
import pg from 'pg';

export type LoadResult = { ok: number; wrong: number; errors: number; errorCodes: string[]; ms: number };

export async function runMultiplexLoad(
  connectionString: string,
  { queries = 800, connections = 16, bigEvery = 10 } = {},
): Promise<LoadResult> {
  const pool = new pg.Pool({ connectionString, max: connections });
  pool.on('error', () => {});
  const big = 'x'.repeat(300_000);
  const started = performance.now();
  const results = await Promise.allSettled(
    Array.from({ length: queries }, async (_, i) => {
      if (i % 3 === 1) {
        const { rows } = await pool.query(`select $1::int as n, ${i} as tag, -1 as len`, [i]);
        return { row: rows[0], expectedLen: -1 };
      }
      const text = i % bigEvery === 0 ? big : 'y'.repeat(i % 500);
      const { rows } = await pool.query(`select $1::int as n, ${i} as tag, length($2) as len`, [i, text]);
      return { row: rows[0], expectedLen: text.length };
    }),
  );
  const ms = Math.round(performance.now() - started);
  await pool.end();

  const result: LoadResult = { ok: 0, wrong: 0, errors: 0, errorCodes: [], ms };
  results.forEach((r, i) => {
    if (r.status === 'rejected') {
      result.errors++;
      result.errorCodes.push(String((r.reason as { code?: string }).code ?? (r.reason as Error).message));
    } else if (r.value.row?.n === i && r.value.row?.tag === i && r.value.row?.len === r.value.expectedLen) {
      result.ok++;
    } else {
      result.wrong++;
    }
  });
  result.errorCodes = [...new Set(result.errorCodes)];
  return result;
}
