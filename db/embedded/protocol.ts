/**
 * The small part of the Postgres wire protocol (v3.0) the embedded wire server needs to understand:
 * framing of frontend messages, walking backend messages, and building the few messages it writes
 * itself. Everything else passes through to PGlite byte for byte.
 * https://www.postgresql.org/docs/current/protocol-message-formats.html
 */

export const SSL_REQUEST_CODE = 80877103;
export const GSSENC_REQUEST_CODE = 80877104;
export const CANCEL_REQUEST_CODE = 80877102;
export const PROTOCOL_MAJOR_3 = 3;

/** Frontend message type bytes we act on. */
export const Frontend = {
  Query: 0x51, // 'Q'
  Parse: 0x50, // 'P'
  Execute: 0x45, // 'E'
  Sync: 0x53, // 'S'
  Flush: 0x48, // 'H'
  FunctionCall: 0x46, // 'F'
  CopyDone: 0x63, // 'c'
  CopyFail: 0x66, // 'f'
  Terminate: 0x58, // 'X'
} as const;

/** Backend message type bytes we act on. */
export const Backend = {
  ReadyForQuery: 0x5a, // 'Z'
  NotificationResponse: 0x41, // 'A'
  CopyInResponse: 0x47, // 'G'
  ErrorResponse: 0x45, // 'E'
} as const;

/**
 * After one of these the client waits for an answer, so the messages buffered so far form a unit
 * that can run. Anything else (Parse, Bind, Describe, Execute, CopyData...) may still be followed
 * by more of the same sequence, so it must never run on its own.
 */
const UNIT_BOUNDARIES = new Set<number>([
  Frontend.Query,
  Frontend.Sync,
  Frontend.Flush,
  Frontend.FunctionCall,
  Frontend.CopyDone,
  Frontend.CopyFail,
]);

export function endsUnit(type: number): boolean {
  return UNIT_BOUNDARIES.has(type);
}

// Startup packets are small; anything bigger is not Postgres talking to us.
const MAX_STARTUP_LENGTH = 10_000;
// PostgreSQL's own limit for a single message is 1 GB.
const MAX_MESSAGE_LENGTH = 0x3fffffff;

export class ProtocolError extends Error {
  override name = 'ProtocolError';
}

/**
 * Reassembles messages from socket chunks. Chunks are only concatenated once a whole message is
 * buffered, so a 300 KB Bind arriving in 64 KB pieces is copied once, not once per piece.
 */
export class FrameReader {
  #chunks: Buffer[] = [];
  #size = 0;

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#size += chunk.length;
  }

  /** The next untyped startup-phase packet (SSLRequest, StartupMessage, CancelRequest...), or null. */
  nextStartupPacket(): Buffer | null {
    const head = this.#peek(8);
    if (!head) return null;
    const length = head.readInt32BE(0);
    if (length < 8 || length > MAX_STARTUP_LENGTH) throw new ProtocolError(`invalid startup packet length ${length}`);
    return this.#peek(length) ? this.#take(length) : null;
  }

  /** The next complete typed message (type byte + length + body), or null. */
  nextMessage(): Buffer | null {
    const head = this.#peek(5);
    if (!head) return null;
    const length = head.readInt32BE(1);
    if (length < 4 || length > MAX_MESSAGE_LENGTH) throw new ProtocolError(`invalid message length ${length}`);
    return this.#peek(1 + length) ? this.#take(1 + length) : null;
  }

  #peek(n: number): Buffer | null {
    if (this.#size < n) return null;
    if (this.#chunks[0]!.length < n) this.#chunks = [Buffer.concat(this.#chunks, this.#size)];
    return this.#chunks[0]!;
  }

  #take(n: number): Buffer {
    const head = this.#chunks[0]!;
    const out = head.subarray(0, n);
    if (head.length === n) this.#chunks.shift();
    else this.#chunks[0] = head.subarray(n);
    this.#size -= n;
    return out;
  }
}

export type BackendMessageSpan = { type: number; start: number; end: number };

/** Walks the complete backend messages in `buf` (PGlite always returns whole messages). */
export function* backendMessages(buf: Buffer): Generator<BackendMessageSpan> {
  let start = 0;
  while (start + 5 <= buf.length) {
    const end = start + 1 + buf.readInt32BE(start + 1);
    if (end > buf.length) throw new ProtocolError('truncated backend message');
    yield { type: buf[start]!, start, end };
    start = end;
  }
}

/** Reads a NUL-terminated UTF-8 string starting at `offset`. */
function readCString(buf: Buffer, offset: number): { value: string; next: number } {
  const nul = buf.indexOf(0, offset);
  if (nul < 0) throw new ProtocolError('unterminated string');
  return { value: buf.toString('utf8', offset, nul), next: nul + 1 };
}

/** The channel of a NotificationResponse ('A', length, pid, channel, payload). */
export function notificationChannel(msg: Buffer): string {
  return readCString(msg, 9).value;
}

/** The SQL text carried by a Query or Parse message, or null for other messages. */
export function sqlOf(msg: Buffer): string | null {
  if (msg[0] === Frontend.Query) return readCString(msg, 5).value;
  if (msg[0] === Frontend.Parse) return readCString(msg, readCString(msg, 5).next).value;
  return null;
}

function message(type: number, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head[0] = type;
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const cstring = (s: string) => Buffer.from(`${s}\0`, 'utf8');

export function queryMessage(sql: string): Buffer {
  return message(Frontend.Query, cstring(sql));
}

export function executeMessage(portal: string, maxRows = 0): Buffer {
  const rows = Buffer.alloc(4);
  rows.writeInt32BE(maxRows);
  return message(Frontend.Execute, Buffer.concat([cstring(portal), rows]));
}

export const SYNC_MESSAGE = message(Frontend.Sync, Buffer.alloc(0));

export function copyFailMessage(reason: string): Buffer {
  return message(Frontend.CopyFail, cstring(reason));
}

export function notificationMessage(channel: string, payload: string, pid = 0): Buffer {
  const pidBuf = Buffer.alloc(4);
  pidBuf.writeInt32BE(pid);
  return message(Backend.NotificationResponse, Buffer.concat([pidBuf, cstring(channel), cstring(payload)]));
}

export function errorMessage(severity: 'ERROR' | 'FATAL', code: string, text: string): Buffer {
  const field = (tag: string, value: string) => cstring(`${tag}${value}`);
  return message(
    Backend.ErrorResponse,
    Buffer.concat([field('S', severity), field('V', severity), field('C', code), field('M', text), Buffer.alloc(1)]),
  );
}
