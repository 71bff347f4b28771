/**
 * A webhook POST under the crawler's SSRF rules: a host that resolves to a public address when it
 * is checked and to a private one when the socket connects (DNS rebinding) reaches nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedPost, type ResolveAll } from '../../src/ingest/crawl';

let server: Server;
let port: number;
const received: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((r) => server.close(r)));

/** A resolver answering each lookup of the name with the next of `answers`. */
function rebinding(...answers: string[]): ResolveAll {
  let call = 0;
  return (_host, _opts, callback) => {
    const address = answers[Math.min(call++, answers.length - 1)]!;
    callback(null, [{ address, family: 4 }]);
  };
}

const post = { headers: { 'content-type': 'application/json' }, body: '{"ok":true}', timeoutMs: 5_000 };

describe('guardedPost', () => {
  it('posts and answers the status where private addresses are allowed', async () => {
    expect(await guardedPost(`http://127.0.0.1:${port}/hook`, { ...post, allowPrivate: true })).toBe(204);
    expect(received.at(-1)).toBe('{"ok":true}');
  });

  it('refuses a name that resolves to a private address, before connecting', async () => {
    const before = received.length;
    await expect(guardedPost(`http://hooks.example.test:${port}/hook`, { ...post, resolve: rebinding('127.0.0.1') })).rejects.toMatchObject({ name: 'CrawlRefusedError' });
    expect(received.length).toBe(before);
  });

  it('refuses a name that rebinds to a private address between the check and the connect', async () => {
    const before = received.length;
    await expect(guardedPost(`http://hooks.example.test:${port}/hook`, { ...post, resolve: rebinding('93.184.216.34', '127.0.0.1') })).rejects.toMatchObject({
      name: 'CrawlRefusedError',
    });
    expect(received.length).toBe(before);
  });
});
