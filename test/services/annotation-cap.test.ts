/** A KB's curated answers are bounded, since every question is compared with each of them. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createContext } from '../../src/context';
import { newId } from '../../src/ids';
import { createAnnotation, MAX_ANNOTATIONS_PER_KB } from '../../src/services/annotations/create-annotation';
import { createKb } from '../../src/services/kbs/create-kb';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

it(`refuses a curated answer past ${MAX_ANNOTATIONS_PER_KB} in one KB with a clear 409`, async () => {
  const { org: dto } = await createOrgWithKey(t.deps, { plan: 'pro' });
  const org = await t.db.selectFrom('organizations').selectAll().where('id', '=', dto.id).executeTakeFirstOrThrow();
  const ctx = createContext(t.deps, org, { requestId: 'test' });
  const { kb } = await createKb(ctx, { name: 'Support' });
  await t.db
    .insertInto('annotations')
    .values(Array.from({ length: MAX_ANNOTATIONS_PER_KB }, (_, i) => ({ id: newId('annotation'), org_id: org.id, kb_id: kb.id as never, question: `Question ${i}?`, answer: `Answer ${i}.`, enabled: false, created_by: 'test' })))
    .execute();
  await expect(createAnnotation(ctx, { kb_id: kb.id, question: 'One more?', answer: 'No room.' })).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/at most 1000 curated answers/) });
});
