/**
 * Writes schema/schema.graphql and the dashboard's typed view of it (src/dashboard/app/graphql-env.d.ts,
 * read by gql.tada so `tsc` fails when a dashboard query and the schema disagree). Both are committed;
 * a test fails when either is stale. Run: npm run schema:print
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { outputIntrospectionFile } from '@gql.tada/internal';
import { introspectionFromSchema, printSchema } from 'graphql';
import { schema } from './index';

export const printedSchema = () => `${printSchema(schema)}\n`;
export const printedDashboardTypes = () =>
  outputIntrospectionFile(introspectionFromSchema(schema, { descriptions: false }), { fileType: '.d.ts', shouldPreprocess: true });

export const DASHBOARD_TYPES_FILE = new URL('../src/dashboard/app/graphql-env.d.ts', import.meta.url);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(new URL('./schema.graphql', import.meta.url), printedSchema());
  writeFileSync(DASHBOARD_TYPES_FILE, printedDashboardTypes());
  console.log('wrote schema/schema.graphql and src/dashboard/app/graphql-env.d.ts');
}
