/**
 * Why db/embedded/wire-server.ts exists: the multiplexer of the pinned @electric-sql/pglite-socket
 * 0.2.17 gets the very load that wire-server.test.ts passes wrong (electric-sql/pglite#1046). This
 * also proves the loads are sharp enough to catch a regression. If it starts passing after an upgrade,
 * the upstream fix has landed and the stock server may be worth reconsidering.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runMultiplexLoad } from './multiplex-load';

let pglite: PGlite;
let server: PGLiteSocketServer;

beforeAll(async () => {
  pglite = await PGlite.create();
  server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0, maxConnections: 64 });
  await server.start();
});

afterAll(async () => {
  await server?.stop();
  await pglite?.close().catch(() => {}); // the stock server may leave the session mid-sequence
});

it('mixes up concurrent queries under the same load (known upstream bug)', async () => {
  const result = await runMultiplexLoad(`postgres://postgres@${server.getServerConn()}/postgres`, {
    queries: 800,
    connections: 16,
  });
  console.log(`[stock pglite-socket 0.2.17] 800 queries / 16 connections: ${JSON.stringify(result)}`);
  expect(result.wrong + result.errors).toBeGreaterThan(0);
});

it('delivers NOTIFY to the sender instead of the listener (known upstream bug)', async () => {
  const connectionString = `postgres://postgres@${server.getServerConn()}/postgres`;
  const [listener, sender] = [new pg.Client({ connectionString }), new pg.Client({ connectionString })];
  await listener.connect();
  await sender.connect();
  const toListener: string[] = [];
  const toSender: string[] = [];
  listener.on('notification', (n) => toListener.push(n.payload ?? ''));
  sender.on('notification', (n) => toSender.push(n.payload ?? ''));
  await listener.query('LISTEN stock_events');
  await sender.query(`NOTIFY stock_events, 'hello'`);
  await sleep(200);
  await Promise.all([listener.end(), sender.end()]);
  expect({ toListener, toSender }).toEqual({ toListener: [], toSender: ['hello'] });
});
