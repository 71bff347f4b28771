/**
 * `node src/app-bundle/launch.mjs --build` runs this after the bundle: the migrated cluster new
 * embedded data directories start from (template.ts), built unless this code's is already there.
 */
import path from 'node:path';
import { REPO_ROOT } from '../../src/repo-root';
import { ensureEmbeddedTemplate } from './template';

const { file, built } = await ensureEmbeddedTemplate();
console.log(`${built ? 'built' : 'kept'} ${path.relative(REPO_ROOT, file)} (the embedded database's new-cluster template)`);
