import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { HttpDeps } from '../http/authenticate-request';
import { READ_BUDGET_BYTES, type TrpcCall } from '../http/read-cost';
import { appRouter } from './router';

/**
 * A body tRPC cannot parse (malformed JSON, a broken multipart body) surfaces inside tRPC as an
 * internal error; it is the caller's fault, so it is answered here as a 400 in tRPC's error shape.
 * The body is already size-limited (src/http/body-limit.ts), so reading it here is bounded.
 */
async function parsedBody(request: Request): Promise<{ request: Request } | { refusal: Response }> {
  if (request.method === 'GET') {
    // A query's input travels as JSON in ?input=; tRPC answers one it cannot parse with a 500.
    const input = new URL(request.url).searchParams.get('input');
    try {
      if (input !== null) JSON.parse(input);
      return { request };
    } catch {
      return { refusal: parseError(request, 'Malformed input: expected JSON in ?input=') };
    }
  }
  if (request.method !== 'POST' || !request.body) return { request };
  const type = request.headers.get('content-type') ?? '';
  const headers = new Headers(request.headers);
  headers.delete('content-length');
  try {
    if (/^multipart\/form-data\b/i.test(type)) {
      // Re-encoded FormData gets a boundary of its own, so the caller's content-type must go.
      headers.delete('content-type');
      return { request: new Request(request.url, { method: 'POST', headers, body: await request.formData(), signal: request.signal }) };
    }
    const text = await request.text();
    if (text !== '') JSON.parse(text);
    return { request: new Request(request.url, { method: 'POST', headers, body: text, signal: request.signal }) };
  } catch (err) {
    if ((err as { name?: string }).name === 'AppError') throw err; // the body limit's 413
    return { refusal: parseError(request, /^multipart/i.test(type) ? 'Malformed multipart/form-data body' : 'Malformed request body: expected valid JSON') };
  }
}

/**
 * Calls one batched request may hold. Every call of a batch runs before the answer goes out, so a
 * batch of 50 lists held one HTTP request for 5–6 s on the embedded database under load (issue 26);
 * the dashboard sends none, and a client batching more splits them (httpBatchLink's `maxItems`).
 */
export const MAX_BATCH_CALLS = 20;

function tooLargeBatch(request: Request): Response | null {
  const url = new URL(request.url);
  if (url.searchParams.get('batch') !== '1') return null;
  const path = url.pathname.replace(/^\/trpc\//, '');
  const calls = path.split(',').length;
  if (calls <= MAX_BATCH_CALLS) return null;
  return Response.json(
    {
      error: {
        message: `A batch may hold at most ${MAX_BATCH_CALLS} calls; this one holds ${calls}. Send them in smaller batches (httpBatchLink's maxItems).`,
        code: -32600,
        data: { code: 'BAD_REQUEST', httpStatus: 400, path, app_code: 'invalid_input', field: 'batch' },
      },
    },
    { status: 400 },
  );
}

/**
 * The read budget after the work, as GraphQL's response cap (src/graphql/limits.ts): the estimate
 * prices chunk text at the average length of the organisation's longest-chunked KB, in characters, so chunks longer than the
 * average, or in a script of two or more bytes per character, can pass it and return more. A query's
 * JSON answer over READ_BUDGET_BYTES is replaced by a 400 in tRPC's error shape (one for the whole
 * request, as a too-large batch is). Only queries (GET): a mutation's answer reports work already
 * done, and streamed answers (subscriptions) are bounded per event.
 */
async function boundedAnswer(request: Request, res: Response): Promise<Response> {
  if (request.method !== 'GET' || !/^application\/json\b/i.test(res.headers.get('content-type') ?? '')) return res;
  const text = await res.text();
  const bytes = Buffer.byteLength(text);
  if (bytes <= READ_BUDGET_BYTES) return new Response(text, { status: res.status, headers: res.headers });
  const path = new URL(request.url).pathname.replace(/^\/trpc\//, '');
  return Response.json(
    {
      error: {
        message: `The response would be ${Math.round(bytes / 1048576)} MB; at most ${READ_BUDGET_BYTES / 1048576} MB are returned in one request: ask for fewer items, or send fewer calls in one batch`,
        code: -32600,
        data: { code: 'BAD_REQUEST', httpStatus: 400, path, app_code: 'invalid_input', field: 'limit' },
      },
    },
    { status: 400 },
  );
}

/** The calls a request holds, with their inputs, for pricing the whole request before any runs. */
async function readCalls(request: Request): Promise<TrpcCall[]> {
  const url = new URL(request.url);
  const paths = url.pathname.replace(/^\/trpc\//, '').split(',');
  const batch = url.searchParams.get('batch') === '1';
  let raw: unknown = null;
  try {
    if (request.method === 'GET') raw = JSON.parse(url.searchParams.get('input') ?? 'null');
    else if (/json/i.test(request.headers.get('content-type') ?? '')) raw = JSON.parse((await request.clone().text()) || 'null');
  } catch {
    raw = null;
  }
  const unwrap = (v: unknown) => (v && typeof v === 'object' && 'json' in v ? (v as { json: unknown }).json : v);
  return paths.map((path, i) => ({ path, input: unwrap(batch ? (raw as Record<string, unknown> | null)?.[String(i)] : raw) }));
}

function parseError(request: Request, message: string): Response {
  const path = new URL(request.url).pathname.replace(/^\/trpc\//, '');
  return Response.json(
    { error: { message, code: -32700, data: { code: 'PARSE_ERROR', httpStatus: 400, path, app_code: 'invalid_input', field: null } } },
    { status: 400 },
  );
}

export function createTrpcHandler(deps: HttpDeps) {
  return async (request: Request, requestId: string, receivedAt = Date.now(), clientIp = 'unknown') => {
    // Tagged rather than `instanceof Response`: under @hono/node-server the global Response is the
    // adapter's own class, which `Response.json` does not return (that check let every parse error through as a 500).
    const refused = tooLargeBatch(request);
    if (refused) return refused;
    const parsed = await parsedBody(request);
    if ('refusal' in parsed) return parsed.refusal;
    const calls = await readCalls(parsed.request);
    const res = await fetchRequestHandler({
      endpoint: '/trpc',
      req: parsed.request,
      router: appRouter,
      createContext: () => ({ deps, headers: request.headers, requestId, receivedAt, clientIp, calls }),
      // A refusal that says when to come back (rate limits, refused-key throttling) says it in the header too.
      responseMeta: ({ errors }) => {
        const retryAfter = Math.max(0, ...errors.map((e) => (e.cause as { details?: { retryAfter?: number } } | undefined)?.details?.retryAfter ?? 0));
        return retryAfter > 0 ? { headers: { 'retry-after': String(retryAfter) } } : {};
      },
    });
    return boundedAnswer(request, res);
  };
}

