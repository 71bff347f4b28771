import path from 'node:path';

/**
 * Where e2e tests put the screenshots docs/*.md show. A normal run writes them under
 * test-artifacts/ so `npm test` never dirties a working tree; `UPDATE_DOC_IMAGES=1 npm test`
 * refreshes docs/images/ on purpose.
 */
export const DOC_IMAGES = process.env.UPDATE_DOC_IMAGES
  ? path.resolve(import.meta.dirname, '../../docs/images')
  : path.resolve('test-artifacts/doc-images');
