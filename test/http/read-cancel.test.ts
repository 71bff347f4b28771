/**
 * A read whose client goes away stops (issue 44: a nested read kept the server working ~25 s after
 * its client had left). Over a real port, since the client hanging up is the thing under test; the
 * read is made to wait, deterministically, by a second connection holding a lock on `chunks`. Once
 * the client aborts, the server's statement waiting on the lock must be gone from pg_stat_activity,
 * the read's remaining resolvers or calls must start no statement of their own (they would wait on
 * the lock too, and hold the organisation's read line: src/services/org-share.ts), and the server
 * keeps answering.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hardenServer, serverOptions } from '../../src/http/server-limits';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

const DOCUMENTS = 12;
let t: TestApp;
let server: Server;
let base: string;
let key: string;
let kbId: string;
let docIds: string[];
/** Holds the lock in a transaction, and reads what the server's connections are doing. */
let locker: pg.Client;
let observer: pg.Client;

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  ({ api_key: key } = await createOrgWithKey(t.deps, { plan: 'pro' }));
  kbId = (await restClient(t.app, key).post('/api/kbs', { name: 'Depot manuals' })).body.kb.id;
  docIds = [];
  for (let i = 0; i < DOCUMENTS; i++) {
    const text = `# Depot ${i}\n\n${`Bay ${i} takes pallets on weekday mornings and returns on Fridays. `.repeat(20)}`;
    docIds.push((await uploadFile(t.app, key, kbId, { name: `depot-${i}.md`, bytes: text })).body.document.id);
  }
  await runQueuedJobs(t);
  await new Promise<void>((resolve) => {
    server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1', serverOptions: serverOptions(t.deps.config.http) }, () => resolve()) as Server;
  });
  hardenServer(server);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  locker = new pg.Client({ connectionString: t.database.connectionString });
  observer = new pg.Client({ connectionString: t.database.connectionString });
  await Promise.all([locker.connect(), observer.connect()]);
});

afterAll(async () => {
  await locker?.end().catch(() => {});
  await observer?.end().catch(() => {});
  server?.closeAllConnections();
  server?.close();
  await t?.close();
});

/** The server's statements waiting for the lock on `chunks` (the observer's own reads excluded). */
async function waitingOnLock(): Promise<number[]> {
  const { rows } = await observer.query<{ pid: number }>(
    `select pid from pg_stat_activity
      where datname = current_database() and state = 'active' and wait_event_type = 'Lock'
        and pid <> pg_backend_pid() and pid <> $1`,
    [(locker as unknown as { processID: number }).processID],
  );
  return rows.map((r) => r.pid).sort();
}

/** Of `pids`, those still running a statement. */
async function stillRunning(pids: number[]): Promise<number[]> {
  const { rows } = await observer.query<{ pid: number }>(`select pid from pg_stat_activity where pid = any($1) and state = 'active'`, [pids]);
  return rows.map((r) => r.pid);
}

/**
 * Starts `send` while `chunks` is locked, waits until the server's statement waits on the lock,
 * aborts the client and checks the server stopped: the waiting statements are cancelled, and the
 * same organisation's next read answers while the lock is still held.
 */
async function abortWhileLocked(send: (signal: AbortSignal) => Promise<Response>) {
  await locker.query('begin');
  await locker.query('lock table chunks in access exclusive mode');
  try {
    const client = new AbortController();
    const pending = send(client.signal).then(
      () => 'answered',
      (err: Error) => err.name,
    );
    await expect.poll(waitingOnLock, { timeout: 30_000, interval: 50 }).not.toEqual([]);
    const blocked = await waitingOnLock();
    client.abort();
    expect(await pending).toBe('AbortError');

    await expect.poll(() => stillRunning(blocked), { timeout: 30_000, interval: 50 }).toEqual([]);
    // Had the read's other resolvers (or calls) gone on, their chunk reads would wait on the lock
    // and hold the organisation's two read slots: this read of the same organisation would wait too.
    // (The timeout only turns a hang into a failure that says why.)
    const kbs = await fetch(`${base}/api/kbs`, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(20_000) }).catch(() => null);
    expect(kbs?.status, "the organisation's read line is still held by the stopped read").toBe(200);
    expect(await waitingOnLock()).toEqual([]);
  } finally {
    await locker.query('rollback');
  }
}

const NESTED = `query Nested($id: ID!) { knowledgeBase(id: $id) { documents { id chunks(first: 50) { nodes { id text } } } } }`;

const graphql = (signal?: AbortSignal) =>
  fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query: NESTED, variables: { id: kbId } }),
    signal,
  });

const batch = (signal?: AbortSignal) => {
  const input = Object.fromEntries(docIds.map((id, i) => [String(i), { kb_id: kbId, id, limit: 200 }]));
  const paths = docIds.map(() => 'documents.chunks').join(',');
  return fetch(`${base}/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { 'x-api-key': key }, signal });
};

type NestedBody = { data?: { knowledgeBase: { documents: Array<{ chunks: { nodes: Array<{ text: string }> } }> } }; errors?: unknown };

describe('a read whose client goes away', () => {
  it('stops a nested GraphQL read: its waiting statement is cancelled and no other resolver starts one', async () => {
    const before = (await (await graphql()).json()) as NestedBody;
    expect(before.errors).toBeUndefined();
    expect(before.data?.knowledgeBase.documents).toHaveLength(DOCUMENTS);

    await abortWhileLocked(graphql);

    const after = await graphql();
    expect(after.status).toBe(200);
    expect(((await after.json()) as NestedBody).data).toEqual(before.data);
  });

  it('stops a tRPC batch of chunk reads the same way', async () => {
    const first = await batch();
    expect(first.status).toBe(200);
    const before = (await first.json()) as Array<{ result?: { data: { chunks: unknown[] } } }>;
    expect(before.every((r) => (r.result?.data.chunks.length ?? 0) > 0)).toBe(true);

    await abortWhileLocked(batch);

    const after = await batch();
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual(before);
  });

  it('lets a mutation whose client goes away run to its end', async () => {
    await locker.query('begin');
    await locker.query('lock table knowledge_bases in access exclusive mode');
    const client = new AbortController();
    const pending = fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query: `mutation { createKnowledgeBase(input: { name: "Night shift" }) { id } }` }),
      signal: client.signal,
    }).catch((err: Error) => err.name);
    try {
      await expect.poll(waitingOnLock, { timeout: 30_000, interval: 50 }).not.toEqual([]);
      client.abort();
      expect(await pending).toBe('AbortError');
    } finally {
      await locker.query('commit');
    }
    await expect.poll(async () => (await restClient(t.app, key).get('/api/kbs')).body.kbs.map((kb: { name: string }) => kb.name), { timeout: 30_000 }).toContain('Night shift');
  });
});
