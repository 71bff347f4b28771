/** Roles and key scopes (src/services/access/roles.ts) and the append-only audit log. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context';
import { AppError } from '../../src/errors';
import { apiKeyActor, SYSTEM_ACTOR, VISITOR_ACTOR, type Actor } from '../../src/services/access/actor';
import { authorize, can } from '../../src/services/access/roles';
import { recordAudit } from '../../src/services/audit/record-audit';
import type { ApiKeyId } from '../../src/ids';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

const person = (role: Actor['role']): Actor => ({ type: 'user', id: null, label: `${role}@example.test`, role, scope: 'full' });

describe('authorize', () => {
  it('orders roles: an editor changes documents but cannot delete a KB or see keys', () => {
    const editor = { actor: person('editor') };
    expect(can(editor, 'document.write')).toBe(true);
    expect(can(editor, 'kb.delete')).toBe(false);
    expect(can(editor, 'key.read')).toBe(false);
    expect(can({ actor: person('admin') }, 'kb.delete')).toBe(true);
    expect(can({ actor: person('admin') }, 'owner.write')).toBe(false);
    expect(can({ actor: person('viewer') }, 'content.read')).toBe(true);
    expect(can({ actor: person('viewer') }, 'document.write')).toBe(false);
    expect(() => authorize(editor, 'kb.delete')).toThrow(/role \(editor\) cannot delete a knowledge base/);
  });

  it('lets a query key and a widget visitor search and chat, and nothing else, whatever their role', () => {
    const queryKey = { actor: apiKeyActor({ id: 'key_x' as ApiKeyId, prefix: 'gw_x', scope: 'query' }) };
    expect(can(queryKey, 'query')).toBe(true);
    expect(can(queryKey, 'content.read')).toBe(false);
    expect(can({ actor: VISITOR_ACTOR }, 'content.read')).toBe(false);
    const refused = (() => {
      try {
        authorize(queryKey, 'kb.create');
      } catch (err) {
        return err;
      }
    })();
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('forbidden');
    expect((refused as AppError).message).toMatch(/query scope/);
    expect(can({ actor: apiKeyActor({ id: 'key_y' as ApiKeyId, prefix: 'gw_y', scope: 'full' }) }, 'owner.write')).toBe(true);
  });
});

describe('audit log', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('stores who did what and refuses to rewrite or delete it', async () => {
    const { org: dto } = await createOrgWithKey(t.deps);
    const org = await t.db.selectFrom('organizations').selectAll().where('id', '=', dto.id).executeTakeFirstOrThrow();
    const ctx = createContext(t.deps, org, { requestId: 'test', actor: { ...SYSTEM_ACTOR, ip: '203.0.113.9' } });
    await recordAudit(ctx, { action: 'kb.delete', targetType: 'kb', targetId: 'kb_gone', changes: { name: 'Old' } });
    const rows = await t.db.selectFrom('audit_log').selectAll().where('org_id', '=', org.id).where('action', '=', 'kb.delete').execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor_type: 'system', actor_label: 'system', ip: '203.0.113.9', action: 'kb.delete', target_id: 'kb_gone', changes: { name: 'Old' } });
    await expect(t.db.updateTable('audit_log').set({ action: 'kb.create' }).where('org_id', '=', org.id).execute()).rejects.toThrow(/append-only/);
    await expect(t.db.deleteFrom('audit_log').where('org_id', '=', org.id).execute()).rejects.toThrow(/append-only/);
  });
});
