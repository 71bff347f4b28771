/**
 * The embedded wire server under concurrent clients: results stay with their own query,
 * transactions of different connections never interleave, a vanished client's work is rolled back,
 * and notifications reach the connections that LISTENed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../db/embedded/open-embedded';
import { longestLoopGap } from '../helpers/loop-gap';
import { runMultiplexLoad } from './multiplex-load';
import { RawWireClient, SSL_REQUEST, STARTUP, msg } from './raw-wire-client';

let embedded: EmbeddedDatabase;
const clients: pg.Client[] = [];

beforeAll(async () => {
  embedded = await openEmbeddedDatabase({ dataDir: null });
  await embedded.pglite.exec('create table items (id int primary key, note text)');
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.end().catch(() => {})));
  await embedded.pglite.exec('truncate items');
});

afterAll(async () => {
  await embedded?.close();
});

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: embedded.connectionString });
  client.on('error', () => {});
  await client.connect();
  clients.push(client);
  return client;
}

/** Kills the client's TCP connection without a Terminate message, like a crashed process. */
function vanish(client: pg.Client): void {
  (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
}

async function count(client: pg.Client, where = 'true'): Promise<number> {
  const { rows } = await client.query<{ n: number }>(`select count(*)::int as n from items where ${where}`);
  return rows[0]!.n;
}

function nextNotification(client: pg.Client, channel: string, timeoutMs = 2000): Promise<pg.Notification> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('notification', onNotification);
      reject(new Error(`no notification on ${channel} within ${timeoutMs} ms`));
    }, timeoutMs);
    const onNotification = (n: pg.Notification) => {
      if (n.channel !== channel) return;
      clearTimeout(timer);
      client.off('notification', onNotification);
      resolve(n);
    };
    client.on('notification', onNotification);
  });
}

/** Resolves to whether `promise` settled within `ms`, without consuming its result. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const settled = promise.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, sleep(ms).then(() => false)]);
}

describe('multiplexing', () => {
  it('keeps 800 concurrent queries on 16 connections apart, ~300 KB parameters included', async () => {
    const result = await runMultiplexLoad(embedded.connectionString, { queries: 800, connections: 16 });
    console.log(`[wire-server] 800 queries / 16 connections: ${JSON.stringify(result)}`);
    expect(result).toMatchObject({ ok: 800, wrong: 0, errors: 0 });
  });

  it('lets timers run between queued units instead of running the whole queue in one event-loop turn', async () => {
    const connections = await Promise.all(Array.from({ length: 12 }, () => connect()));
    const slow = 'select count(*)::int as n from generate_series(1, 200000)';
    const aloneStarted = performance.now();
    await connections[0]!.query(slow);
    const alone = performance.now() - aloneStarted;

    const started = performance.now();
    const maxGap = await longestLoopGap(async () => {
      const results = await Promise.all(connections.map((c) => c.query<{ n: number }>(slow)));
      expect(results.map((r) => r.rows[0]!.n)).toEqual(connections.map(() => 200_000));
    }, 1);
    const burst = performance.now() - started;
    console.log(`[wire-server] 12 queued units: one alone ${alone.toFixed(1)} ms, all ${burst.toFixed(1)} ms, longest timer gap ${maxGap.toFixed(1)} ms`);
    // Run back to back in one turn, the gap would be the whole burst; yielding bounds it near one unit.
    expect(maxGap).toBeLessThan(burst / 3);
  });

  it('answers an SSLRequest with N, starts up with trust auth, and ends on Terminate', async () => {
    const raw = await RawWireClient.connect(embedded.port);
    raw.send(SSL_REQUEST);
    expect((await raw.readBytes(1)).toString()).toBe('N');

    raw.send(STARTUP);
    const startup = await raw.readUntilReady();
    expect(startup[0]).toMatchObject({ type: 'R' });
    expect(startup[0]!.body.readInt32BE(0)).toBe(0); // AuthenticationOk
    expect(startup.some((m) => m.type === 'S' && m.body.toString().startsWith('server_version\0'))).toBe(true);
    expect(startup.at(-1)!.body.toString()).toBe('I');

    raw.send(msg.query('select 41 + 1'));
    const reply = await raw.readUntilReady();
    expect(reply.map((m) => m.type)).toEqual(['T', 'D', 'C', 'Z']);

    const closed = new Promise((resolve) => raw.socket.once('close', resolve));
    raw.send(msg.terminate());
    await closed;
  });

  it('reports an error to the failing connection only', async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    const [bad, good] = await Promise.allSettled([a.query('select no_such_column'), b.query('select 7 as n')]);
    expect(bad).toMatchObject({ status: 'rejected', reason: { code: '42703' } });
    expect(good).toMatchObject({ status: 'fulfilled', value: { rows: [{ n: 7 }] } });
    expect((await a.query('select 8 as n')).rows).toEqual([{ n: 8 }]);
  });
});

describe('transactions', () => {
  it('makes another connection wait until an open transaction commits', async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    await a.query('begin');
    await a.query(`insert into items values (1, 'a')`);

    const seenByB = count(b);
    expect(await settlesWithin(seenByB, 300)).toBe(false);

    await a.query(`insert into items values (2, 'a')`); // the owner keeps working meanwhile
    await a.query('commit');
    expect(await seenByB).toBe(2);
  });

  it('makes another connection wait through a failed transaction until it rolls back', async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    await a.query('begin');
    await a.query(`insert into items values (1, 'a')`);
    await expect(a.query('select no_such_column')).rejects.toMatchObject({ code: '42703' });

    const seenByB = count(b);
    expect(await settlesWithin(seenByB, 200)).toBe(false);
    await a.query('rollback');
    expect(await seenByB).toBe(0);
  });

  it('rolls back the open transaction of a client that vanishes', async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    await a.query('begin');
    await a.query(`insert into items values (1, 'lost')`);
    const seenByB = count(b);
    vanish(a);
    expect(await seenByB).toBe(0);
    expect(embedded.pglite.isInTransaction()).toBe(false);
  });

  it('rolls back the open transaction of a client that terminates politely', async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    await a.query('begin');
    await a.query(`insert into items values (1, 'lost')`);
    await a.end(); // sends Terminate while inside the transaction
    expect(await count(b)).toBe(0);
  });

  it('rolls back transactions of clients that vanish right after sending them, while queued or owning', async () => {
    const b = await connect();
    const raws = await Promise.all(Array.from({ length: 10 }, () => RawWireClient.connectReady(embedded.port)));
    raws.forEach((raw, k) => {
      raw.send(msg.query(`begin; insert into items values (${k}, 'gone')`));
      raw.destroy(); // some go while waiting for their turn, some after their unit ran
    });
    expect(await count(b)).toBe(0);
    expect(embedded.pglite.isInTransaction()).toBe(false);
  });

  it('discards an extended-protocol sequence a client leaves open after Flush', async () => {
    const b = await connect();
    const raw = await RawWireClient.connectReady(embedded.port);
    raw.send(Buffer.concat([msg.parse(`insert into items values (1, 'half-done')`), msg.bind(), msg.execute(), msg.flush()]));
    const replies = [await raw.readMessage(), await raw.readMessage(), await raw.readMessage()];
    expect(replies.map((m) => m.type)).toEqual(['1', '2', 'C']); // executed, but never Synced

    const seenByB = count(b);
    expect(await settlesWithin(seenByB, 200)).toBe(false); // the sequence still owns the session
    raw.destroy();
    expect(await seenByB).toBe(0); // and was rolled back, not committed by a Sync
  });
});

describe('LISTEN/NOTIFY', () => {
  it('delivers a notification to the listening connection and not to the sender', async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    const receivedByB: pg.Notification[] = [];
    b.on('notification', (n) => receivedByB.push(n));
    await a.query('LISTEN "Jobs:Insert"');

    const latencies: number[] = [];
    for (let k = 0; k < 20; k++) {
      const received = nextNotification(a, 'Jobs:Insert');
      const sent = performance.now();
      await b.query(`select pg_notify('Jobs:Insert', $1)`, [String(k)]);
      expect((await received).payload).toBe(String(k));
      latencies.push(performance.now() - sent);
    }
    latencies.sort((x, y) => x - y);
    console.log(`[wire-server] NOTIFY -> listener latency ms: median ${latencies[10]!.toFixed(2)}, max ${latencies.at(-1)!.toFixed(2)}`);
    expect(latencies.at(-1)).toBeLessThan(500);
    expect(receivedByB).toEqual([]);
  });

  it('folds unquoted channel names and delivers to every listener of the channel', async () => {
    const [a, b, c] = await Promise.all([connect(), connect(), connect()]);
    await a.query('LISTEN Shared');
    await c.query('/* two */ LISTEN shared; select 1');
    const toA = nextNotification(a, 'shared');
    const toC = nextNotification(c, 'shared');
    await b.query(`NOTIFY SHARED, 'both'`);
    expect((await toA).payload).toBe('both');
    expect((await toC).payload).toBe('both');
  });

  it("keeps delivering to a listener after another connection's UNLISTEN or disconnect", async () => {
    const [a, b, c, d] = await Promise.all([connect(), connect(), connect(), connect()]);
    await a.query('LISTEN jobs');
    await c.query('LISTEN jobs');
    await d.query('LISTEN jobs');
    await c.query('UNLISTEN jobs'); // would stop the one shared session listening, for everyone
    vanish(d);
    const receivedByC: pg.Notification[] = [];
    c.on('notification', (n) => receivedByC.push(n));

    const toA = nextNotification(a, 'jobs');
    await b.query(`NOTIFY jobs, 'still here'`);
    expect((await toA).payload).toBe('still here');
    expect(receivedByC).toEqual([]);
  });

  it('delivers notifications only when the notifying transaction commits', async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    await a.query('LISTEN tx_events');
    const received: string[] = [];
    a.on('notification', (n) => received.push(n.payload ?? ''));

    await b.query('begin');
    await b.query(`NOTIFY tx_events, 'rolled back'`);
    await b.query('rollback');
    await b.query('begin');
    await b.query(`NOTIFY tx_events, 'committed'`);
    await sleep(50);
    expect(received).toEqual([]);
    const toA = nextNotification(a, 'tx_events');
    await b.query('commit');
    await toA;
    expect(received).toEqual(['committed']);
  });

  it('forwards notifications raised by in-process PGlite queries', async () => {
    const a = await connect();
    await a.query('LISTEN in_process');
    const toA = nextNotification(a, 'in_process');
    await embedded.pglite.query(`select pg_notify('in_process', 'from pglite')`);
    expect((await toA).payload).toBe('from pglite');
  });
});
