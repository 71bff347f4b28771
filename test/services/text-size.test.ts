/**
 * Reads are priced by the organisation's chunk length (src/http/read-cost.ts): the KB with the
 * longest chunks sets it, so a read of that KB is never priced at another KB's shorter chunks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context';
import { averageChunkChars } from '../../src/services/documents/text-size';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

async function kbOf(key: string, name: string, text: string): Promise<string> {
  const kbId: string = (await restClient(t.app, key).post('/api/kbs', { name })).body.kb.id;
  expect((await uploadFile(t.app, key, kbId, { name: `${name}.md`, bytes: text })).status).toBe(202);
  return kbId;
}

describe('the chunk length reads are priced at', () => {
  it("is the longest-chunked KB's, whichever KB was filled first", async () => {
    const { api_key, org } = await createOrgWithKey(t.deps, { plan: 'pro' });
    // First a KB of many short chunks, then one of long ones.
    const short = Array.from({ length: 150 }, (_, i) => `## Rule ${i}\n\nBadge ${i} opens door ${i}.`).join('\n\n');
    const long = Array.from({ length: 4 }, (_, i) => `## Part ${i}\n\n${`Section ${i} sets out the depot rules and the loading schedule in detail. `.repeat(20)}`).join('\n\n');
    const shortKb = await kbOf(api_key, 'short', short);
    await runQueuedJobs(t);
    const longKb = await kbOf(api_key, 'long', long);
    await runQueuedJobs(t);
    const mean = async (kbId: string) => {
      const rows = await t.db.selectFrom('chunks').select('text').where('kb_id', '=', kbId as never).execute();
      return rows.reduce((n, r) => n + r.text.length, 0) / rows.length;
    };
    expect(await mean(shortKb)).toBeLessThan((await mean(longKb)) / 4);
    const orgRow = await t.db.selectFrom('organizations').selectAll().where('id', '=', org.id as never).executeTakeFirstOrThrow();
    const priced = await averageChunkChars(createContext(t.deps, orgRow, { requestId: 'text-size' }));
    expect(priced).toBeGreaterThanOrEqual(Math.floor(await mean(longKb)) - 1);
  });
});
