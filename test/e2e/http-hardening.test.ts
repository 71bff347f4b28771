/**
 * What only a real server process shows: body-less requests as curl, Node's fetch and Python's
 * urllib send them (no body, no content-type: the server's Request still has a body stream, which
 * made them 415); a 60 KB URL answered by Node itself (an empty 431 before); slow clients cut off
 * by the header timeout with a JSON 408.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type StartedServer } from '../helpers/server-process';

const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-hardening-'));
let server: StartedServer;
let key: string;

beforeAll(async () => {
  server = await startServer({ DATA_DIR: dataDir, DATABASE_URL: '', HTTP_HEADERS_TIMEOUT_MS: '2000' });
  key = server.apiKey!;
});
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const run = (file: string, args: string[]) =>
  new Promise<string>((resolve, reject) => execFile(file, args, { timeout: 30_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout))));

async function createKbWithDocument() {
  const kb = (await (await fetch(`${server.url}/api/kbs`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{"name":"bodyless"}' })).json()) as { kb: { id: string } };
  const form = new FormData();
  form.set('kb_id', kb.kb.id);
  form.set('file', new Blob(['Refunds are issued within 14 days of the request.']), 'refunds.txt');
  const doc = (await (await fetch(`${server.url}/api/ingest/upload`, { method: 'POST', headers: { 'x-api-key': key }, body: form })).json()) as { document: { id: string } };
  return { kbId: kb.kb.id, docId: doc.document.id };
}

/** Like Python's urllib with data=None: no body, no content-length, no content-type. */
function bareRequest(method: string, url: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(url, { method, headers: { 'x-api-key': key } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('body-less requests', () => {
  it('work from curl, Node fetch, a bare HTTP request and Python urllib', async () => {
    const curl = async (method: string, url: string) => {
      const out = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-X', method, url, '-H', `x-api-key: ${key}`]);
      return Number(out);
    };
    const fetchStatus = async (method: string, url: string) => (await fetch(url, { method, headers: { 'x-api-key': key } })).status;
    const bare = async (method: string, url: string) => (await bareRequest(method, url)).status;
    const python = async (method: string, url: string) =>
      Number(
        await run('python3', [
          '-c',
          'import sys,urllib.request as u\nr=u.Request(sys.argv[2],method=sys.argv[1],headers={"x-api-key":sys.argv[3]})\ntry:\n print(u.urlopen(r).status)\nexcept Exception as e:\n print(e.code)',
          method,
          url,
          key,
        ]),
      );
    for (const [name, client] of Object.entries({ curl, fetch: fetchStatus, bare, python })) {
      const { kbId, docId } = await createKbWithDocument();
      const base = `${server.url}/api/kbs/${kbId}`;
      expect(await client('POST', `${base}/documents/${docId}/reingest`), `${name} reingest`).toBe(202);
      expect(await client('DELETE', `${base}/documents/${docId}`), `${name} delete document`).toBe(200);
      expect(await client('DELETE', base), `${name} delete kb`).toBe(200);
    }
  });
});

describe('what Node refuses before the app', () => {
  it('answers a malformed request with a JSON 400 that carries an x-request-id (issue 26)', async () => {
    const { hostname, port } = new URL(server.url);
    const socket = net.connect(Number(port), hostname);
    socket.write('GARBAGE\r\n\r\n');
    const answer = await new Promise<string>((resolve) => {
      let data = '';
      socket.on('data', (d) => (data += d));
      socket.on('close', () => resolve(data));
      socket.on('error', () => resolve(data));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/);
    expect(answer).toMatch(/"code":"invalid_input"/);
  });

  it('answers a 60 KB URL with a JSON 431', async () => {
    const res = await fetch(`${server.url}/api/kbs?q=${'a'.repeat(60 * 1024)}`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_input');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('cuts off a client that sends its headers too slowly (slowloris) with a JSON 408', async () => {
    const { hostname, port } = new URL(server.url);
    const socket = net.connect(Number(port), hostname);
    socket.write('GET /api/kbs HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => socket.writable && socket.write('x-drip: 1\r\n'), 300);
    const started = performance.now();
    const answer = await new Promise<string>((resolve) => {
      let data = '';
      socket.on('data', (d) => (data += d));
      socket.on('close', () => resolve(data));
      socket.on('error', () => resolve(data));
    });
    clearInterval(drip);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toMatch(/"code":"invalid_input"/);
    expect(answer).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

/** Found by the abuse suite (test/e2e/abuse.test.ts); each only shows over real HTTP. */
describe('refusals over real HTTP', () => {
  it('answers tRPC bodies and ?input= it cannot parse with a 400 PARSE_ERROR, not a 500', async () => {
    const body = await fetch(`${server.url}/trpc/kbs.create`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{"name": "abc' });
    expect(body.status).toBe(400);
    expect(((await body.json()) as { error: { data: { code: string } } }).error.data.code).toBe('PARSE_ERROR');
    const query = await fetch(`${server.url}/trpc/kbs.get?input=${encodeURIComponent("'; drop table kbs; --")}`, { headers: { 'x-api-key': key } });
    expect(query.status).toBe(400);
    expect(((await query.json()) as { error: { data: { app_code: string } } }).error.data.app_code).toBe('invalid_input');
  });

  it('answers a GraphQL POST without a JSON or multipart body with a JSON 415', async () => {
    const res = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'text/plain' }, body: 'abc' });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unsupported_media_type');
  });

  it('closes the connection after answering a request whose body it did not read, so a keep-alive client never reuses a socket about to be dropped', async () => {
    // A junk key is refused before the body is read.
    const unread = await fetch(`${server.url}/api/kbs`, { method: 'POST', headers: { 'x-api-key': 'gw_junk', 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x'.repeat(200_000) }) });
    expect(unread.status).toBe(401);
    expect(unread.headers.get('connection')).toBe('close');
    await unread.arrayBuffer();
    const read = await fetch(`${server.url}/api/kbs`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{"name":"kept alive"}' });
    expect(read.status).toBe(201);
    expect(read.headers.get('connection')).not.toBe('close');
  });

  // Issue 26: a large body was sometimes reset before its 413 could be read. GraphQL and tRPC read
  // the body themselves and answered first; the 413 that replaced their answer kept their
  // Content-Length, so the client waited for bytes that never came and saw the socket close.
  const MB = 1024 * 1024;
  const chunk = Buffer.alloc(MB, 0x61);
  const streamOf = (mb: number) =>
    new ReadableStream<Uint8Array>({
      pull(c) {
        if (mb-- > 0) c.enqueue(chunk);
        else c.close();
      },
    });
  it.each([
    ['/graphql', 'application/json'],
    ['/trpc/kbs.create', 'application/json'],
    ['/api/kbs', 'application/json'],
    ['/api/ingest/upload', 'multipart/form-data; boundary=x'],
  ])('answers a 150 MB body sent to %s with a 413 JSON error the client reads in full, streamed or declared', async (route, contentType) => {
    for (const declared of [false, true]) {
      const body = declared ? new Blob(Array.from({ length: 150 }, () => chunk)) : streamOf(150);
      const res = await fetch(`${server.url}${route}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': contentType }, body, duplex: 'half' } as RequestInit);
      expect(res.status).toBe(413);
      const text = await res.text();
      expect(res.headers.get('content-length') ?? String(Buffer.byteLength(text))).toBe(String(Buffer.byteLength(text)));
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'payload_too_large', message: expect.stringMatching(/^The request body exceeds the limit of \d+ MB$/) } });
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  }, 120_000);
});
