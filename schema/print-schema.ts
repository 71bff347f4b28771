/** Writes schema/schema.graphql (committed; a test fails when it is stale). Run: npm run schema:print */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { schema } from './index';

export const printedSchema = () => `${printSchema(schema)}\n`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(new URL('./schema.graphql', import.meta.url), printedSchema());
  console.log('wrote schema/schema.graphql');
}
