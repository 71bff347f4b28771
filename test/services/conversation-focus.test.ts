/**
 * Conversation memory beyond one pattern, end to end through POST /api/rag/chat (offline models):
 * a company named only in an answer ("that company"), "it" kept on the product after a turn about
 * its maker (not the look-alike model's figure), and "Where was it going?" about an aircraft.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { ACCIDENT_TXT, FLEET_MD } from '../fixtures/conversations';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function kbWith(name: string, file: { name: string; bytes: string }) {
  const { api_key } = await createOrgWithKey(t.deps);
  const api = restClient(t.app, api_key);
  const kbId = (await api.post('/api/kbs', { name })).body.kb.id;
  await uploadFile(t.app, api_key, kbId, file);
  await runQueuedJobs(t);
  let session: string | undefined;
  const ask = async (message: string) => {
    const res = await api.post('/api/rag/chat', { kb_id: kbId, message, ...(session ? { session_id: session } : {}) });
    expect(res.status).toBe(200);
    session = res.body.session_id;
    return res.body.response as string;
  };
  return ask;
}

describe('conversation focus', () => {
  it('follows the maker named in an answer, then comes back to the drone', async () => {
    const ask = await kbWith('Drones', { name: 'fleet.md', bytes: FLEET_MD });
    expect(await ask('Who manufactures the Zephyr-9 drone?')).toContain('Northwind Aerial');
    expect(await ask('Where is that company based?')).toContain('Tromsø');
    const battery = await ask('How long can it fly on one battery?');
    expect(battery).toContain('47 minutes');
    expect(battery).not.toContain('31 minutes');
  });

  it('reads "Where was it going?" as a question about the aircraft', async () => {
    const ask = await kbWith('Accidents', { name: 'accident-report.txt', bytes: ACCIDENT_TXT });
    expect(await ask('What aircraft was involved in the accident?')).toContain('Piper PA-28-181');
    expect(await ask('Where was it going?')).toContain('Macon');
  });
});
