/**
 * Limits of the Node HTTP server itself, below the app: how long a client may take to send its
 * headers and its whole request (slowloris), and JSON error bodies for what Node refuses before the
 * app sees a request (a 60 KB URL overflows the 16 KB header limit: Node's own answer is an empty 431).
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from '../config';
import { errorBody, AppError } from '../errors';

const REFUSALS: Record<string, [status: number, reason: string, message: string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'The request line and headers exceed 16 KB (is the URL too long?)'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request was not received in time'],
};

function refuse(socket: Duplex, code: string | undefined): void {
  const [status, reason, message] = REFUSALS[code ?? ''] ?? [400, 'Bad Request', 'Malformed HTTP request'];
  const body = JSON.stringify(errorBody(new AppError('invalid_input', message)));
  // Like every answer of the app, so a client reporting the refusal has an id to quote (issue 26).
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${randomUUID()}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * How long an idle kept-alive connection stays open. Node's default (5 s, closed at 6 s, advertised
 * as `Keep-Alive: timeout=5`) is shorter than what clients keep idle sockets for: undici (fetch)
 * reuses one for the hint minus 2 s, i.e. up to 3 s, so a client whose event loop stalls 3 s on a
 * loaded machine sends its next request into a socket the server is closing, and loses it
 * (`UND_ERR_SOCKET other side closed`, the abuse test's flake). Go keeps idle sockets 90 s and
 * ignores the hint, load balancers and proxies 60 s. The server must be the side that outlasts them:
 * clients that read the hint release a socket long before the server closes it.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 95_000;

/** For http.createServer: timeouts are checked every second, not Node's default 30 s. */
export function serverOptions(limits: Config['http']) {
  return { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: 1_000, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS };
}

export function hardenServer(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // Nothing can be written to a reset socket; a half-sent response cannot get a second status line.
    if (err.code === 'ECONNRESET' || !socket.writable || (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    refuse(socket, err.code);
  });
}
