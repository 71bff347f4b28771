/**
 * A bare Postgres wire client for tests that need what `pg` will not do on purpose: send an
 * SSLRequest, leave an extended-protocol sequence open after Flush, or vanish mid-sequence.
 */
import net from 'node:net';

const cstring = (s: string) => Buffer.from(`${s}\0`);

export function frame(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

export const msg = {
  query: (sql: string) => frame('Q', cstring(sql)),
  parse: (sql: string) => frame('P', Buffer.concat([cstring(''), cstring(sql), Buffer.from([0, 0])])),
  bind: () => frame('B', Buffer.concat([cstring(''), cstring(''), Buffer.alloc(2), Buffer.alloc(2), Buffer.alloc(2)])),
  execute: () => frame('E', Buffer.concat([cstring(''), Buffer.alloc(4)])),
  flush: () => frame('H'),
  sync: () => frame('S'),
  terminate: () => frame('X'),
};

function untyped(code: number, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(code, 4);
  return Buffer.concat([head, body]);
}

export const SSL_REQUEST = untyped(80877103);
export const STARTUP = untyped(196608, Buffer.concat([cstring('user'), cstring('postgres'), cstring('database'), cstring('postgres'), Buffer.alloc(1)]));

export type BackendMessage = { type: string; body: Buffer };

export class RawWireClient {
  #buffer = Buffer.alloc(0);
  #waiters: Array<() => void> = [];

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      for (const wake of this.#waiters.splice(0)) wake();
    });
    socket.on('error', () => {});
  }

  static async connect(port: number): Promise<RawWireClient> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new RawWireClient(socket);
  }

  /** Connects and completes a (trust) startup. */
  static async connectReady(port: number): Promise<RawWireClient> {
    const client = await RawWireClient.connect(port);
    client.send(STARTUP);
    await client.readUntilReady();
    return client;
  }

  send(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  async readBytes(n: number, timeoutMs = 5000): Promise<Buffer> {
    await this.#waitFor(() => this.#buffer.length >= n, timeoutMs);
    const out = this.#buffer.subarray(0, n);
    this.#buffer = this.#buffer.subarray(n);
    return out;
  }

  async readMessage(timeoutMs = 5000): Promise<BackendMessage> {
    const head = await this.#peekBytes(5, timeoutMs);
    const total = 1 + head.readInt32BE(1);
    const bytes = await this.readBytes(total, timeoutMs);
    return { type: String.fromCharCode(bytes[0]!), body: bytes.subarray(5) };
  }

  /** Reads messages up to and including ReadyForQuery; returns them all. */
  async readUntilReady(timeoutMs = 5000): Promise<BackendMessage[]> {
    const messages: BackendMessage[] = [];
    for (;;) {
      const m = await this.readMessage(timeoutMs);
      messages.push(m);
      if (m.type === 'Z') return messages;
    }
  }

  destroy(): void {
    this.socket.destroy();
  }

  async #peekBytes(n: number, timeoutMs: number): Promise<Buffer> {
    await this.#waitFor(() => this.#buffer.length >= n, timeoutMs);
    return this.#buffer.subarray(0, n);
  }

  async #waitFor(ready: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!ready()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for the server');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}
