/** The voice tool answers from a curated answer first, like every other transport, and only in its KB. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context';
import { createAnnotation } from '../../src/services/annotations/create-annotation';
import { createKb } from '../../src/services/kbs/create-kb';
import { searchKnowledgeForVoice } from '../../src/services/voice/voice-knowledge-tool';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('voice knowledge tool', () => {
  it('returns the curated answer as its one cited passage, and nothing of it in another KB', async () => {
    const { org: dto } = await createOrgWithKey(t.deps, { plan: 'pro' });
    const org = await t.db.selectFrom('organizations').selectAll().where('id', '=', dto.id).executeTakeFirstOrThrow();
    const ctx = createContext(t.deps, org, { requestId: 'test' });
    const { kb } = await createKb(ctx, { name: 'Support' });
    const { kb: other } = await createKb(ctx, { name: 'Other' });
    await createAnnotation(ctx, { kb_id: kb.id, question: 'Do you ship to Norway?', answer: 'Yes, we ship to Norway within five working days.' });
    const row = await t.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kb.id as never).executeTakeFirstOrThrow();
    const found = await searchKnowledgeForVoice(ctx, row, JSON.stringify({ query: 'Do you ship to Norway?' }));
    const output = JSON.parse(found.output);
    expect(output).toMatchObject({ found: true, curated: true });
    expect(output.passages[0].text).toBe('Yes, we ship to Norway within five working days.');
    expect(found.sources[0]).toMatchObject({ source_type: 'annotation', marker: 1 });
    const otherRow = await t.db.selectFrom('knowledge_bases').selectAll().where('id', '=', other.id as never).executeTakeFirstOrThrow();
    expect(JSON.parse((await searchKnowledgeForVoice(ctx, otherRow, JSON.stringify({ query: 'Do you ship to Norway?' }))).output).found).toBe(false);
  });
});
