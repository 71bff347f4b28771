/**
 * A Postgres wire-protocol server for one in-process PGlite, safe for many concurrent clients.
 *
 * PGlite is a single Postgres session; a `pg` Pool and graphile-worker open several connections
 * and expect each to behave like its own session. The stock pglite-socket 0.2.17 server queues
 * single messages, so a large Bind arriving in several TCP chunks lets another connection's Parse
 * slip in between: queries silently run someone else's SQL, or fail with 08P01/34000; and
 * NOTIFY reaches the sender instead of the listener (electric-sql/pglite#1046). Guarantees here:
 *
 *  1. A connection owns the database for a whole unit: buffered messages up to Sync, Flush or a
 *     simple Query, run in one PGlite call. It keeps ownership while the unit's reply does not end
 *     in ReadyForQuery (after Flush, during COPY), and while ReadyForQuery says 'T' or 'E' (inside a
 *     transaction). Others queue in FIFO order, so transactions run strictly one after another:
 *     a connection idle in a transaction blocks everyone — that is the design, not a bug.
 *  2. A client that disconnects while owning the database has its transaction rolled back.
 *  3. NotificationResponse messages go to the connections that LISTENed on that channel.
 *  4. Each unit runs in its own event-loop turn, so a queue of units stalls this thread's timers
 *     and sockets for at most one unit at a time, not for the whole queue (voice frames wait behind one
 *     unit, not a queue of them). The
 *     service runs all of this in a thread of its own (database-thread.ts), off the web loop.
 *
 * What cannot be separated: session state (SET, temp tables, named prepared statements — run
 * graphile-worker with `noPreparedStatements: true`; the service's own pools share the session's
 * statements knowingly, db/connect.ts), and advisory locks (one session holds them all, so they
 * never exclude).
 *
 * Ownership is taken through PGlite's own transaction and query mutexes, so in-process calls
 * (`pglite.query`, `pglite.transaction`) interleave with wire clients at the same boundaries.
 * Authentication is trust: bind to loopback only.
 */
import net from 'node:net';
import { setImmediate as nextEventLoopTurn } from 'node:timers/promises';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from '../../src/logger';
import { parseListenCommands, quoteIdent } from './listen-commands';
import {
  Backend,
  CANCEL_REQUEST_CODE,
  FrameReader,
  Frontend,
  GSSENC_REQUEST_CODE,
  PROTOCOL_MAJOR_3,
  SSL_REQUEST_CODE,
  SYNC_MESSAGE,
  backendMessages,
  copyFailMessage,
  endsUnit,
  errorMessage,
  executeMessage,
  notificationChannel,
  notificationMessage,
  queryMessage,
  sqlOf,
} from './protocol';

export type WireServerOptions = {
  host?: string;
  port?: number;
  logger?: Pick<Logger, 'debug' | 'warn' | 'error'>;
};

export type WireServer = {
  host: string;
  port: number;
  connectionString: string;
  /** Disconnects every client (rolling back open transactions) and stops listening. PGlite stays open. */
  close(): Promise<void>;
};

type TxStatus = 'I' | 'T' | 'E';

const ABANDONED_PORTAL = 'groundwork: client disconnected';

export async function startWireServer(pglite: PGlite, opts: WireServerOptions = {}): Promise<WireServer> {
  const host = opts.host ?? '127.0.0.1';
  const hub = new Hub(pglite, opts.logger);
  const server = net.createServer((socket) => hub.accept(socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => opts.logger?.error({ err }, 'embedded wire server error'));
  const port = (server.address() as net.AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    host,
    port,
    connectionString: `postgres://postgres@${host}:${port}/postgres`,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await hub.closeAll();
        await stopped;
      })();
      return closing;
    },
  };
}

/** Shared state of all connections: database ownership, notification routing, LISTEN bookkeeping. */
class Hub {
  readonly connections = new Set<Connection>();
  /** Channels wire clients made the PGlite session LISTEN on. */
  #sessionChannels = new Set<string>();
  #listenDirty = false;
  #stopNotifications: () => void;
  #closing = false;

  constructor(
    readonly pglite: PGlite,
    readonly logger?: WireServerOptions['logger'],
  ) {
    // Notifications raised by in-process queries (pglite.query) are parsed by PGlite itself and
    // never pass through a wire connection's output; forward them to wire listeners too.
    this.#stopNotifications = pglite.onNotification((channel, payload) =>
      this.route(notificationMessage(channel, payload), channel, null),
    );
  }

  accept(socket: net.Socket): void {
    if (this.#closing) {
      socket.destroy();
      return;
    }
    const connection = new Connection(this, socket);
    this.connections.add(connection);
  }

  /**
   * Resolves with a release function once the caller exclusively owns the PGlite session. Both
   * PGlite mutexes are held, in the order PGlite's own transaction() takes them, so neither an
   * in-process query nor an in-process transaction can run in the middle of a wire unit.
   */
  acquire(): Promise<() => void> {
    return new Promise((granted) => {
      this.pglite
        ._runExclusiveTransaction(() =>
          this.pglite._runExclusiveQuery(() => new Promise<void>((release) => granted(release))),
        )
        .catch((err: unknown) => this.logger?.error({ err }, 'embedded database ownership failed'));
    });
  }

  /** Runs raw protocol bytes; only call while owning the session. */
  async run(message: Uint8Array): Promise<Buffer> {
    const chunks: Buffer[] = [];
    await this.pglite.execProtocolRawStream(message, {
      // The chunk is a view into WASM memory that the next call overwrites: copy it.
      onRawData: (data) => chunks.push(Buffer.from(data)),
    });
    return Buffer.concat(chunks);
  }

  /**
   * Strips NotificationResponse messages out of `output` and routes each to its listeners. The
   * sender keeps its own copy in place when it listens too, preserving message order for it.
   */
  routeNotifications(output: Buffer, sender: Connection | null): Buffer {
    let kept: Buffer[] | null = null;
    let keptFrom = 0;
    for (const msg of backendMessages(output)) {
      if (msg.type !== Backend.NotificationResponse) continue;
      const bytes = output.subarray(msg.start, msg.end);
      const channel = notificationChannel(bytes);
      this.route(bytes, channel, sender);
      if (sender?.channels.has(channel)) continue;
      kept ??= [];
      kept.push(output.subarray(keptFrom, msg.start));
      keptFrom = msg.end;
    }
    if (!kept) return output;
    kept.push(output.subarray(keptFrom));
    return Buffer.concat(kept);
  }

  route(msg: Buffer, channel: string, sender: Connection | null): void {
    for (const connection of this.connections) {
      if (connection !== sender && connection.channels.has(channel)) connection.write(msg);
    }
  }

  /** A connection ran LISTEN/UNLISTEN/DISCARD or left: the session may need to LISTEN differently. */
  noteListenChange(listened: Iterable<string>): void {
    for (const channel of listened) this.#sessionChannels.add(channel);
    this.#listenDirty = true;
  }

  /**
   * Makes the session LISTEN on exactly the channels some connection wants: another connection's
   * UNLISTEN (graphile-worker runs one whenever it releases a listening client) also stopped the
   * session listening for everyone else. Only call while owning the session and outside a
   * transaction, where LISTEN/UNLISTEN take effect immediately.
   */
  async reconcileListens(): Promise<void> {
    if (!this.#listenDirty) return;
    this.#listenDirty = false;
    const wanted = new Set<string>();
    for (const connection of this.connections) for (const channel of connection.channels) wanted.add(channel);
    const statements = [
      ...[...this.#sessionChannels].filter((c) => !wanted.has(c)).map((c) => `UNLISTEN ${quoteIdent(c)}`),
      ...[...wanted].map((c) => `LISTEN ${quoteIdent(c)}`),
    ];
    this.#sessionChannels = wanted;
    if (statements.length === 0) return;
    this.routeNotifications(await this.run(queryMessage(statements.join('; '))), null);
  }

  forget(connection: Connection): void {
    this.connections.delete(connection);
    if (connection.channels.size > 0) this.noteListenChange([]);
  }

  async closeAll(): Promise<void> {
    this.#closing = true;
    this.#stopNotifications();
    const finished = [...this.connections].map((c) => c.closed);
    for (const connection of this.connections) connection.destroy();
    await Promise.all(finished);
  }
}

/** One client connection: reads its messages, runs them as units while owning the session. */
class Connection {
  readonly channels = new Set<string>();
  /** Resolves once the connection is gone and no longer owns or waits for the session. */
  readonly closed: Promise<void>;

  #reader = new FrameReader();
  #phase: 'startup' | 'ready' | 'closed' = 'startup';
  /** Complete messages not yet run; the unit is everything up to the last boundary. */
  #pending: Buffer[] = [];
  #unitLength = 0;
  #terminateAfterDrain = false;

  #release: (() => void) | null = null;
  #draining = false;
  /** The last reply did not end in ReadyForQuery: the statement sequence is still open. */
  #sequenceOpen = false;
  #copyIn = false;
  #txStatus: TxStatus = 'I';
  #markClosed!: () => void;

  constructor(
    readonly hub: Hub,
    readonly socket: net.Socket,
  ) {
    this.closed = new Promise((resolve) => (this.#markClosed = resolve));
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.#onData(chunk));
    socket.on('error', (err) => hub.logger?.debug({ err }, 'embedded wire client socket error'));
    socket.on('close', () => this.#onClose());
  }

  write(bytes: Buffer): void {
    if (this.#phase !== 'closed' && this.socket.writable && bytes.length > 0) this.socket.write(bytes);
  }

  destroy(): void {
    this.socket.destroy();
  }

  #onData(chunk: Buffer): void {
    if (this.#phase === 'closed' || this.#terminateAfterDrain) return;
    this.#reader.push(chunk);
    try {
      this.#readMessages();
    } catch (err) {
      this.#fail('08P01', (err as Error).message);
      return;
    }
    void this.#drain();
  }

  #readMessages(): void {
    while (this.#phase === 'startup' && this.#pending.length === 0) {
      const packet = this.#reader.nextStartupPacket();
      if (!packet) return;
      const code = packet.readInt32BE(4);
      if (code === SSL_REQUEST_CODE || code === GSSENC_REQUEST_CODE) {
        this.socket.write('N'); // no encryption on loopback; the client continues in plain text
      } else if (code === CANCEL_REQUEST_CODE) {
        this.destroy(); // one session, no backend to signal; the protocol expects no reply
        return;
      } else if (code >>> 16 === PROTOCOL_MAJOR_3) {
        this.#pending.push(packet); // PGlite answers the startup itself (trust auth, parameters)
        this.#unitLength = 1;
      } else {
        this.#fail('0A000', `unsupported frontend protocol ${code >>> 16}.${code & 0xffff}`);
        return;
      }
    }
    if (this.#phase === 'startup') return;
    for (let msg = this.#reader.nextMessage(); msg; msg = this.#reader.nextMessage()) {
      if (msg[0] === Frontend.Terminate) {
        this.#terminateAfterDrain = true;
        return;
      }
      this.#pending.push(msg);
      if (endsUnit(msg[0]!)) this.#unitLength = this.#pending.length;
    }
  }

  /**
   * The connection's only loop: waits for ownership, runs units, gives ownership back once the
   * connection is settled (idle, outside a transaction). Data arriving meanwhile just extends
   * #pending; a second call while one is running returns at once.
   */
  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    let waitedATurn = false;
    try {
      for (;;) {
        if (this.#phase === 'closed') {
          await this.#abandon();
          return;
        }
        if (this.#unitLength === 0) {
          if (this.#terminateAfterDrain) this.socket.end();
          return;
        }
        if (!this.#release) {
          this.#release = await this.hub.acquire();
          continue; // the connection may have closed while queued
        }
        if (!waitedATurn) {
          // Ownership passes from one connection to the next in a microtask, and PGlite runs
          // synchronously, so a queue of units would otherwise run back to back in one event-loop
          // turn, starving timers and sockets (the voice relay in this process) for the whole
          // queue. Waiting one turn while owning bounds the stall to a single unit and keeps the
          // guarantees: nobody else can take the session meanwhile, and the queue keeps its order.
          await nextEventLoopTurn();
          waitedATurn = true;
          continue; // the connection may have closed during the turn
        }
        waitedATurn = false;
        await this.#runUnit();
        if (!this.#sequenceOpen && this.#txStatus === 'I') {
          // Give the session back after every settled unit, so a busy connection cannot starve others.
          await this.hub.reconcileListens();
          this.#giveBack();
        }
      }
    } catch (err) {
      this.hub.logger?.error({ err }, 'embedded wire connection failed');
      this.destroy();
      this.#shutdown();
      await this.#abandon();
    } finally {
      this.#draining = false;
    }
  }

  async #runUnit(): Promise<void> {
    const unit = this.#pending.splice(0, this.#unitLength);
    this.#unitLength = 0;
    const isStartup = this.#phase === 'startup';
    if (!isStartup) this.#trackListens(unit);

    let output: Buffer;
    try {
      output = await this.hub.run(unit.length === 1 ? unit[0]! : Buffer.concat(unit));
    } catch (err) {
      // PGlite throws (rather than answering with ErrorResponse) for startup packets it rejects.
      this.hub.logger?.warn({ err }, 'embedded database rejected a wire message');
      this.#fail(isStartup ? '08P01' : 'XX000', (err as Error).message);
      return;
    }
    this.#noteReplyState(output);
    if (isStartup && this.#sequenceOpen) {
      // Startup refused (an ErrorResponse instead of ReadyForQuery): pass it on and hang up.
      this.write(output);
      this.socket.end();
      this.#shutdown();
      return;
    }
    if (isStartup) this.#phase = 'ready';
    this.write(this.hub.routeNotifications(output, this));
  }

  #noteReplyState(output: Buffer): void {
    let last: { type: number; start: number } | null = null;
    let copyIn = false;
    for (const msg of backendMessages(output)) {
      last = msg;
      if (msg.type === Backend.CopyInResponse) copyIn = true;
      if (msg.type === Backend.ReadyForQuery) copyIn = false;
    }
    if (!last) return; // e.g. a lone Parse/Bind flushed without reply: state unchanged
    this.#copyIn = copyIn || (this.#copyIn && last.type !== Backend.ReadyForQuery);
    this.#sequenceOpen = last.type !== Backend.ReadyForQuery;
    if (last.type === Backend.ReadyForQuery) {
      this.#txStatus = String.fromCharCode(output[last.start + 5]!) as TxStatus;
    }
  }

  #trackListens(unit: Buffer[]): void {
    let changed = false;
    const listened: string[] = [];
    for (const msg of unit) {
      const sql = sqlOf(msg);
      if (!sql) continue;
      for (const command of parseListenCommands(sql)) {
        changed = true;
        if (command.kind === 'listen') {
          this.channels.add(command.channel);
          listened.push(command.channel);
        } else if (command.kind === 'unlisten') {
          this.channels.delete(command.channel);
        } else {
          this.channels.clear();
        }
      }
    }
    // Reconciled when the unit settles: a LISTEN inside a rolled-back transaction never took
    // effect, and another connection's UNLISTEN may have dropped a channel this one still wants.
    if (changed) this.hub.noteListenChange(listened);
  }

  /**
   * The client is gone. If it owned the session mid-sequence or mid-transaction, bring the session
   * back to idle before anyone else gets it, discarding the client's work like Postgres does when
   * a backend loses its client: abort COPY; abort an open extended-protocol sequence (executing a
   * portal that does not exist raises an error, so the Sync that follows rolls back the implicit
   * transaction instead of committing it); roll back an explicit transaction.
   */
  async #abandon(): Promise<void> {
    try {
      if (!this.#release) return;
      const reset = async (message: Buffer) => {
        const output = await this.hub.run(message);
        this.#noteReplyState(output);
        this.hub.routeNotifications(output, null);
      };
      if (this.#copyIn) await reset(copyFailMessage('client disconnected'));
      if (this.#sequenceOpen) await reset(Buffer.concat([executeMessage(ABANDONED_PORTAL), SYNC_MESSAGE]));
      if (this.hub.pglite.isInTransaction()) await reset(queryMessage('ROLLBACK'));
      await this.hub.reconcileListens();
    } catch (err) {
      this.hub.logger?.error({ err }, 'embedded wire server could not reset the session after a disconnect');
    } finally {
      this.#giveBack();
      this.#markClosed();
    }
  }

  #giveBack(): void {
    const release = this.#release;
    this.#release = null;
    release?.();
  }

  #onClose(): void {
    this.#shutdown();
  }

  #fail(code: string, message: string): void {
    this.write(errorMessage('FATAL', code, message));
    this.socket.end();
    this.#shutdown();
  }

  /** Stops taking work; the drain loop then resets the session if this connection owns it. */
  #shutdown(): void {
    if (this.#phase === 'closed') return;
    this.#phase = 'closed';
    this.#pending = [];
    this.#unitLength = 0;
    this.hub.forget(this);
    void this.#drain();
  }
}
