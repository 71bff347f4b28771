/**
 * One request's view of the connection pool, stopped by the request's AbortSignal: a read whose
 * client has gone away stops using the database (issue 44: a nested read kept it busy ~25 s after
 * its client left). What it guarantees:
 *  - no statement starts once the signal has aborted (a ROLLBACK excepted, so an open transaction
 *    always closes): the service's next query throws AppError('cancelled') instead;
 *  - on PostgreSQL a statement running when the signal aborts is cancelled the way libpq's PQcancel
 *    does it, with a CancelRequest carrying the backend's key on a socket of its own: no pool
 *    connection is needed, and the pool may be full of the very reads being stopped. The connection
 *    is then closed rather than returned to the pool, so a cancel arriving late can never hit
 *    another request's statement;
 *  - on the embedded database a running statement cannot be interrupted (PGlite is one session in
 *    one thread; its wire server has no backend to signal): it runs to its end, and the check before
 *    each statement stops the rest.
 */
import net from 'node:net';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { AppError } from '../src/errors';

/** The CancelRequest code of the wire protocol (1234 << 16 | 5678). */
const CANCEL_REQUEST_CODE = 80877102;

const cancelled = () => new AppError('cancelled', 'The client went away before the read finished; it was stopped');

export function abortablePool(pool: pg.Pool, signal: AbortSignal, opts: { cancelRunning: boolean }): PostgresPool {
  return {
    async connect() {
      if (signal.aborted) throw cancelled();
      const client = await pool.connect();
      if (signal.aborted) {
        client.release();
        throw cancelled();
      }
      return abortableClient(client, signal, opts.cancelRunning);
    },
    // The pool is the process's: a request's view never ends it.
    async end() {},
  };
}

function abortableClient(client: pg.PoolClient, signal: AbortSignal, cancelRunning: boolean): PostgresPoolClient {
  let cancelSent = false;
  const query = async (text: string, values: readonly unknown[]) => {
    if (signal.aborted && !/^\s*rollback\b/i.test(text)) throw cancelled();
    const onAbort = () => {
      if (!cancelRunning || cancelSent) return;
      cancelSent = true;
      sendCancelRequest(client);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await client.query(text, values as unknown[]);
    } catch (err) {
      // 57014 (canceling statement due to user request), or whatever the statement met meanwhile.
      if (signal.aborted) throw cancelled();
      throw err;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  };
  return {
    query: query as unknown as PostgresPoolClient['query'],
    release: () => client.release(cancelSent),
  };
}

/** Best effort: if it cannot be delivered the statement runs to its end, and nothing after it starts. */
function sendCancelRequest(client: pg.PoolClient): void {
  const { processID, secretKey, host, port } = client as unknown as { processID: number | null; secretKey: number | null; host: string; port: number };
  if (processID === null || secretKey === null) return;
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  packet.writeInt32BE(processID, 8);
  packet.writeInt32BE(secretKey, 12);
  const socket = host.startsWith('/') ? net.connect(`${host}/.s.PGSQL.${port}`) : net.connect(port, host);
  socket.setTimeout(10_000, () => socket.destroy());
  socket.on('error', () => {});
  socket.on('connect', () => socket.end(packet));
}
