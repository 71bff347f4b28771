/** What the ingestion fairness tests load: organisations with a KB, and long text of real words. */
import { restClient } from './api-client';
import { createOrgWithKey } from './factories';
import type { TestApp } from './test-app';

/** A Pro organisation (its quotas hold the big documents) with one KB. */
export async function orgWithKb(t: TestApp) {
  const created = await createOrgWithKey(t.deps, { plan: 'pro' });
  const kb = await restClient(t.app, created.api_key).post('/api/kbs', { name: 'KB' });
  return { key: created.api_key, kbId: kb.body.kb.id as string };
}

// Real words in a varied order: degenerate-text collapsing (issue 26) must leave it whole.
const WORDS = 'depot shift rota invoice freight pallet forklift manifest customs berth crane tariff ledger audit route driver'.split(' ');

/** `paragraphs` paragraphs of 200 words each, the same for the same seed. */
export function seededProse(seed: number, paragraphs: number): string {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2147483648);
  return Array.from({ length: paragraphs }, (_, p) => `${Array.from({ length: 200 }, () => WORDS[next() % WORDS.length]).join(' ')} ${p}.`).join('\n\n');
}
