/**
 * Graceful shutdown of a web process (SIGTERM: a deploy, a scale-down, a platform restart).
 *
 * The listener closes at once, so a new connection is refused and the client (or the platform's
 * router, or a proxy's next upstream) goes to another web process. Requests already received and
 * streams already open (SSE answers, GraphQL subscriptions) run to their end, up to a bound, and
 * only then is anything cut. A request that still arrives on a connection opened before the drain
 * gets a clean 503 `unavailable` with Retry-After and `connection: close`, and /healthz and
 * /readyz answer 503, so a load balancer that holds connections open stops sending here too.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { AppError, errorBody } from '../errors';
import { discardRequestBody } from './discard-body';
import type { Logger } from '../logger';

export type Drain = { readonly draining: boolean; begin(): void };

export function createDrain(): Drain {
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    begin() {
      draining = true;
    },
  };
}

const PROBES = new Set(['/healthz', '/readyz']);

/** Mounted before the routes: while draining nothing new starts here, and every response closes its connection. */
export function drainGate(drain: Drain): MiddlewareHandler {
  return async (c, next) => {
    if (!drain.draining) {
      await next();
      // The drain began while this request ran: its connection must not be reused.
      if (drain.draining) c.header('connection', 'close');
      return;
    }
    if (PROBES.has(c.req.path)) return c.json({ status: 'draining' }, 503, { connection: 'close' });
    // Read what the client still sends (bounded: limitBodies runs first), or the closing socket resets it.
    await discardRequestBody(c.req.raw, { maxBytes: Number.POSITIVE_INFINITY, maxMs: 2_000 });
    const err = new AppError('unavailable', 'This server is shutting down; retry the request', { retryAfter: 1 });
    return c.json(errorBody(err), 503, { 'retry-after': '1', connection: 'close' });
  };
}

export type DrainOutcome = { ms: number; cut: number };

/** How long a connection accepted before the listener closed may take to send its request (then answered with a 503, not cut). */
export const NEW_CONNECTION_GRACE_MS = 2_000;

export type Connections = { closeIdle(): void };

/**
 * The server's connections, with whether each has a request in flight and whether it has carried
 * one. Node's closeIdleConnections() ends the connections that have served and wait for their next
 * request, but not one that was accepted and has sent nothing yet (a browser's preconnect, a client
 * that stalled): that one kept the drain open until its bound and was then counted as cut. With
 * this, such a connection gets NEW_CONNECTION_GRACE_MS to send its request (answered with a clean
 * 503) and is then ended. Upgraded (voice) sockets leave the list: the voice gateway closes them.
 */
export function trackConnections(server: Server): Connections {
  const sockets = new Map<Socket, { acceptedAt: number; inFlight: number; served: boolean }>();
  server.on('connection', (socket: Socket) => {
    sockets.set(socket, { acceptedAt: Date.now(), inFlight: 0, served: false });
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('request', (req, res) => {
    const state = sockets.get(req.socket);
    if (!state) return;
    state.inFlight++;
    res.once('close', () => {
      state.inFlight--;
      state.served = true;
    });
  });
  server.on('upgrade', (req) => sockets.delete(req.socket));
  return {
    closeIdle() {
      const now = Date.now();
      for (const [socket, state] of sockets) {
        if (state.inFlight === 0 && (state.served || now - state.acceptedAt > NEW_CONNECTION_GRACE_MS)) socket.destroy();
      }
    },
  };
}

/**
 * Stops accepting, lets what is in flight finish within `boundMs`, then cuts what is left.
 * Resolves once the server has no connection left.
 */
export async function drainServer(server: Server, drain: Drain, boundMs: number, logger: Logger, connections: Connections): Promise<DrainOutcome> {
  const started = Date.now();
  drain.begin();
  const open = await new Promise<number>((resolve) => server.getConnections((_err, n) => resolve(n ?? 0)));
  logger.info({ connections: open, boundMs }, 'draining: listener closed, finishing in-flight requests and streams');
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // close() ends the connections idle at that moment; one that finishes its response later, or was
  // accepted and sends nothing, would otherwise stay open and keep close() from resolving.
  const sweeping = setInterval(() => connections.closeIdle(), 100);
  let timer: NodeJS.Timeout | undefined;
  const inTime = await Promise.race([closed.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), boundMs)))]);
  clearTimeout(timer);
  clearInterval(sweeping);
  let cut = 0;
  if (!inTime) {
    cut = await new Promise<number>((resolve) => server.getConnections((_err, n) => resolve(n ?? 0)));
    logger.warn({ connections: cut, boundMs }, 'drain bound reached: cutting the requests and streams still open');
    server.closeAllConnections();
    // Upgraded (voice) sockets are not the HTTP server's to cut: the voice gateway closes them.
    await within(closed, 1_000);
  }
  return { ms: Date.now() - started, cut };
}

/** Resolves when `work` does or after `boundMs`, whichever is first; true if `work` finished. */
export async function within(work: Promise<unknown>, boundMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([work.then(() => true, () => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), boundMs)))]);
  clearTimeout(timer);
  return finished;
}
