/**
 * The web process's drain (src/http/graceful-shutdown.ts) on a real Node HTTP server: what is in
 * flight finishes, a new connection is refused, probes and late requests get clean 503s, and the
 * bound cuts what outlasts it. The whole deployment's SIGTERM is in test/e2e/procfile.test.ts.
 */
import type { Server } from 'node:http';
import { request } from 'node:http';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { afterEach, expect, it } from 'vitest';
import { connect } from 'node:net';
import { createDrain, drainGate, drainServer, trackConnections, type Connections, type Drain } from '../../src/http/graceful-shutdown';
import { createLogger } from '../../src/logger';
import { waitFor, waitUntil } from '../helpers/wait-for';

const logger = createLogger('silent');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let server: Server | null = null;
let connections: Connections;
/** Requests the handlers have begun: a test starts the drain once its requests are in flight. */
let entered = 0;
/** /slow answers once released: it is still in flight when the drain begins, however slow the machine. */
let releaseSlow = () => {};

const accepted = () => waitFor('the connection accepted', () => new Promise<number>((r) => server!.getConnections((_err, n) => r(n ?? 0))), (n) => n >= 1);
const listenerClosed = () => waitUntil('the listener closed', () => !server!.listening);

afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = null;
});

async function start(drain: Drain) {
  entered = 0;
  const slowGate = new Promise<void>((r) => (releaseSlow = r));
  const app = new Hono();
  app.use('*', drainGate(drain));
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/slow', async (c) => {
    entered++;
    await slowGate;
    return c.json({ done: true });
  });
  app.get('/stream', (c) =>
    streamSSE(c, async (s) => {
      entered++;
      for (let i = 0; i < Number(c.req.query('events')); i++) {
        await s.writeSSE({ event: 'delta', data: String(i) });
        await sleep(100);
      }
      await s.writeSSE({ event: 'done', data: '' });
    }),
  );
  app.post('/upload', async (c) => c.json({ bytes: (await c.req.arrayBuffer()).byteLength }, 202));
  server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  connections = trackConnections(server);
  await new Promise((r) => server!.once('listening', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** One request on its own connection (no keep-alive pool), as the e2e test's client sends them. */
function get(url: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

it('finishes in-flight requests and streams, refuses new connections, and exits the drain when they are done', async () => {
  const drain = createDrain();
  const url = await start(drain);
  const slow = get(`${url}/slow`);
  const stream = get(`${url}/stream?events=10`);
  await waitUntil('both requests in flight', () => entered === 2);

  const drained = drainServer(server!, drain, 30_000, logger, connections);
  await listenerClosed();
  await expect(get(`${url}/healthz`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  releaseSlow();

  expect(await slow).toMatchObject({ status: 200, body: '{"done":true}', headers: { connection: 'close' } });
  const sse = await stream;
  expect(sse.status).toBe(200);
  expect(sse.body.match(/event: delta/g)).toHaveLength(10);
  expect(sse.body).toContain('event: done');
  // Exited when they were done, not at the bound: nothing was left to cut.
  expect((await drained).cut).toBe(0);
});

it('answers a request sent late on a connection accepted before the listener closed with a clean 503', async () => {
  const drain = createDrain();
  const url = new URL(await start(drain));
  // Connected, request not yet sent: what a client on a loaded machine looks like at the moment of SIGTERM.
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((r) => socket.once('connect', r));
  let received = '';
  socket.on('data', (d) => (received += d));
  const ended = new Promise<string | null>((resolve) => {
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    socket.once('close', () => resolve(null));
  });
  await accepted();
  const drained = drainServer(server!, drain, 10_000, logger, connections);
  await listenerClosed();
  const body = 'x'.repeat(64 * 1024);
  socket.end(`POST /upload HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  expect(await ended).toBeNull();
  expect(received).toMatch(/^HTTP\/1\.1 503 /);
  expect(received).toContain('"unavailable"');
  expect((await drained).cut).toBe(0);
});

it('ends a connection that never sends its request once the grace has passed, instead of waiting for the bound', async () => {
  const drain = createDrain();
  const url = new URL(await start(drain));
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((r) => socket.once('connect', r));
  const closed = new Promise((r) => socket.once('close', r));
  socket.on('error', () => {});
  await accepted();
  const outcome = await drainServer(server!, drain, 30_000, logger, connections);
  await closed;
  // Ended after the grace, not held to the bound: a connection still open then is counted as cut.
  expect(outcome.cut).toBe(0);
});

it('cuts a stream that outlasts the bound', async () => {
  const drain = createDrain();
  const url = await start(drain);
  const stream = get(`${url}/stream?events=1000`).catch((err: Error) => err);
  await waitUntil('the stream open', () => entered === 1);
  // The stream would run 100 s, past the test's timeout: the 500 ms bound cut it.
  const outcome = await drainServer(server!, drain, 500, logger, connections);
  expect(outcome.cut).toBe(1);
  const result = await stream;
  // Cut mid-stream: the client sees the connection end without the final event.
  expect(result instanceof Error ? result.message : result.body).not.toContain('event: done');
});

it('answers probes and late requests with a clean 503 while draining', async () => {
  const drain = createDrain();
  const app = new Hono();
  app.use('*', drainGate(drain));
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/api/kbs', (c) => c.json({ kbs: [] }));
  expect((await app.request('/healthz')).status).toBe(200);

  drain.begin();
  const probe = await app.request('/healthz');
  expect(probe.status).toBe(503);
  expect(await probe.json()).toEqual({ status: 'draining' });
  const late = await app.request('/api/kbs');
  expect(late.status).toBe(503);
  expect(late.headers.get('retry-after')).toBe('1');
  expect(late.headers.get('connection')).toBe('close');
  expect(await late.json()).toEqual({ error: { code: 'unavailable', message: expect.stringMatching(/shutting down/) } });
});
