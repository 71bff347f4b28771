/** The per-organisation fair share (src/services/org-share.ts): a flood waits in its own line. */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors';
import { ORG_CONCURRENCY, ORG_QUEUE, withOrgShare } from '../../src/services/org-share';

const org = (id: string) => ({ org: { id } }) as Parameters<typeof withOrgShare>[0];

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('withOrgShare', () => {
  it(`runs ${ORG_CONCURRENCY} at once per organisation, queues ${ORG_QUEUE} more, refuses the rest with 429, and lets another organisation start at once`, async () => {
    const g = gate();
    let running = 0;
    let peak = 0;
    const work = async () => {
      running++;
      peak = Math.max(peak, running);
      await g.opened;
      running--;
      return 'done';
    };
    const flood = Array.from({ length: ORG_CONCURRENCY + ORG_QUEUE }, () => withOrgShare(org('org_attacker'), work));
    const refused = await withOrgShare(org('org_attacker'), work).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('rate_limited');
    expect((refused as AppError).details.retryAfter).toBe(1);

    // The other organisation is not behind the flood: it finishes while the flood still waits.
    await expect(withOrgShare(org('org_victim'), async () => 'victim')).resolves.toBe('victim');
    expect(running).toBe(ORG_CONCURRENCY);

    g.open();
    expect(await Promise.all(flood)).toEqual(flood.map(() => 'done'));
    expect(peak).toBe(ORG_CONCURRENCY);
    // Idle again: the line is free for new work.
    await expect(withOrgShare(org('org_attacker'), async () => 'again')).resolves.toBe('again');
  });

  it('frees the slot of work that fails', async () => {
    for (let i = 0; i < ORG_CONCURRENCY + 1; i++) {
      await expect(withOrgShare(org('org_failing'), async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    }
    await expect(withOrgShare(org('org_failing'), async () => 'ok')).resolves.toBe('ok');
  });
});
