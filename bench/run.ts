/**
 * `npm run bench -- <name> [args]`: runs one benchmark from bench/<name>.ts and prints its numbers.
 * Benchmarks: abuse, api, candidates-at-scale, conversations, dashboard, embedded-load, ingest, ingest-stages, languages,
 * quality, reports, search, tokenizer-parity, vector-recall, voice (and widget, when present).
 */
import { existsSync } from 'node:fs';

const [name, ...rest] = process.argv.slice(2);
const file = name ? new URL(`./${name}.ts`, import.meta.url) : null;
if (!name || !existsSync(file!)) {
  process.stderr.write('usage: npm run bench -- <abuse|api|candidates-at-scale|conversations|dashboard|embedded-load|ingest|ingest-stages|languages|quality|reports|search|tokenizer-parity|vector-recall|voice|widget> [options]\n');
  process.exit(2);
}
process.argv = [process.argv[0]!, file!.pathname, ...rest];
await import(file!.href);
