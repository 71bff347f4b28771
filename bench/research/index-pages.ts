/**
 * Which pages of the FinanceBench filings isIndexPage (src/services/rag/figure-pages.ts) calls a
 * table of contents, with the start of each: to read its precision by eye. Diagnosis only.
 *
 *   node --import tsx bench/research/index-pages.ts
 */
import { openBenchRuntime } from '../lib/bench-runtime';
import { restoreFinanceBench } from './lib/financebench-snapshot';
import { documentPassages, isIndexPage } from '../../src/services/rag/figure-pages';
import type { DocumentId, KbId } from '../../src/ids';

const rt = await openBenchRuntime('postgres');
try {
  const { kb, filingOf } = await restoreFinanceBench(rt, 'real');
  let total = 0;
  let flagged = 0;
  for (const [docId, name] of filingOf) {
    const passages = await documentPassages(rt.deps.db, kb.id as KbId, docId as DocumentId, null, null);
    const pages = new Map<number, { nums: number[]; text: string }>();
    const rows = await rt.deps.db.selectFrom('chunks').select(['id', 'text']).where('document_id', '=', docId as DocumentId).execute();
    const texts = new Map<string, string>(rows.map((r) => [r.id, r.text]));
    for (const p of [...passages].sort((a, b) => a.position - b.position)) {
      if (p.page === null) continue;
      const at = pages.get(p.page) ?? { nums: [], text: '' };
      at.nums.push(...p.smallNumbers);
      at.text += ' ' + (texts.get(p.id) ?? '');
      pages.set(p.page, at);
    }
    for (const [page, v] of pages) {
      total++;
      if (isIndexPage(v.nums)) {
        flagged++;
        console.log(name, page, v.nums.length, JSON.stringify(v.text.replace(/\s+/g, ' ').slice(0, 140)));
      }
    }
  }
  console.log('flagged', flagged, 'of', total);
} finally {
  await rt.close();
}
