/**
 * A local fake of the OpenAI HTTP API that speaks the real wire protocol, so
 * production client code (@ai-sdk/openai, the openai SDK, curl) runs against
 * it unchanged.
 *
 * Endpoints (under /v1):
 * - POST /chat/completions   JSON, or SSE `data: {chat.completion.chunk}` lines
 *                            ending in `data: [DONE]` when `stream: true`; a final
 *                            usage chunk when `stream_options.include_usage`.
 * - POST /responses          JSON `response` object, or the Responses API event
 *                            stream (`event:` + `data:` lines, response.created ...
 *                            response.completed) when `stream: true`.
 * - POST /embeddings         `{ object: 'list', data: [{ object: 'embedding', index,
 *                            embedding }], model, usage }`; `encoding_format:
 *                            'base64'` returns little-endian float32 base64.
 * - GET  /models             a small model list.
 *
 * Every request needs `Authorization: Bearer <apiKey>` (401 in OpenAI's error
 * shape otherwise). Requests are recorded in `requests`. Replies are scripted
 * with `reply(req)`; latency with `delayMs` / `chunkDelayMs`; failures with
 * `fail(req)` or `failNext(...)` (e.g. 429 with retry-after headers, 500), and
 * broken streams with `dropStreamAfterChunks`.
 *
 * Embeddings are deterministic and L2-normalised: hashed bag-of-words (each
 * lower-cased word adds ±1 at a hashed index), so texts that share words have
 * a positive cosine similarity and retrieval tests behave sensibly.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeEndpoint = 'chat.completions' | 'responses' | 'embeddings' | 'models' | 'unknown';

export interface FakeMessage {
  role: string;
  content: string;
}

export interface FakeOpenAIRequest {
  endpoint: FakeEndpoint;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined for GET or invalid JSON). */
  body: any;
  /** Chat/Responses input flattened to plain text messages, in order (system/developer/instructions included). */
  messages: FakeMessage[];
  /** Text of the last user message ('' if none). */
  lastUserText: string;
  stream: boolean;
  model?: string;
  receivedAt: number;
  /** Whether the request passed authentication. */
  authorized: boolean;
  /** For streams: set when the client went away before the stream ended (e.g. generation aborted). */
  clientAborted?: boolean;
}

export interface FakeOpenAIFailure {
  status: number;
  message?: string;
  type?: string;
  code?: string | null;
  /** Sent as `retry-after-ms` and `retry-after`, which the AI SDK honours when retrying. */
  retryAfterMs?: number;
}

export interface FakeOpenAIOptions {
  /** Accepted bearer token; default 'sk-test-groundwork'. */
  apiKey?: string;
  /** The assistant text for a chat/responses request; default echoes the last user message. */
  reply?: (req: FakeOpenAIRequest) => string | Promise<string>;
  /** Fail a request (return undefined to let it through). Checked after auth, before `failNext`. */
  fail?: (req: FakeOpenAIRequest) => FakeOpenAIFailure | undefined;
  /** Delay before the response headers, in ms. */
  delayMs?: number;
  /** Delay between stream events, in ms. */
  chunkDelayMs?: number;
  /** Destroy the socket after this many content chunks of a stream (simulates a dropped connection). */
  dropStreamAfterChunks?: number;
  /** Default embedding size when the request has no `dimensions`; default 1536. */
  embeddingDimensions?: number;
}

export interface FakeOpenAI {
  /** Base URL including /v1, e.g. http://127.0.0.1:53211/v1 — pass as `baseURL`. */
  url: string;
  apiKey: string;
  requests: FakeOpenAIRequest[];
  /** Replace the reply function. */
  setReply(reply: NonNullable<FakeOpenAIOptions['reply']>): void;
  /** Fail the next `count` authorised requests with this failure. */
  failNext(failure: FakeOpenAIFailure, count?: number): void;
  close(): Promise<void>;
}

const sleep = (ms: number) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());
const nowSeconds = () => Math.floor(Date.now() / 1000);
const randomId = (prefix: string) => `${prefix}${createHash('sha1').update(`${Math.random()}${Date.now()}`).digest('hex').slice(0, 24)}`;
/** Rough token count, good enough for usage fields. */
const countTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

function contentToText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p: any) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : ''))
      .filter(Boolean)
      .join('\n');
  }
  return '';
}

function flattenMessages(endpoint: FakeEndpoint, body: any): FakeMessage[] {
  if (!body || typeof body !== 'object') return [];
  if (endpoint === 'chat.completions' && Array.isArray(body.messages)) {
    return body.messages.map((m: any) => ({ role: String(m.role), content: contentToText(m.content) }));
  }
  if (endpoint === 'responses') {
    const out: FakeMessage[] = [];
    if (typeof body.instructions === 'string') out.push({ role: 'system', content: body.instructions });
    if (typeof body.input === 'string') out.push({ role: 'user', content: body.input });
    else if (Array.isArray(body.input)) {
      for (const item of body.input) {
        if (item?.role) out.push({ role: String(item.role), content: contentToText(item.content) });
      }
    }
    return out;
  }
  return [];
}

function errorBody(message: string, type: string, code: string | null, param: string | null = null) {
  return { error: { message, type, param, code } };
}

function defaultFailure(status: number): Required<Omit<FakeOpenAIFailure, 'retryAfterMs'>> {
  switch (status) {
    case 429:
      return {
        status,
        message: 'Rate limit reached for requests. Please try again in 20ms.',
        type: 'requests',
        code: 'rate_limit_exceeded',
      };
    case 500:
      return {
        status,
        message: 'The server had an error while processing your request. Sorry about that!',
        type: 'server_error',
        code: null,
      };
    case 503:
      return { status, message: 'The engine is currently overloaded, please try again later.', type: 'server_error', code: null };
    case 400:
      return { status, message: 'Invalid request.', type: 'invalid_request_error', code: null };
    default:
      return { status, message: `Error ${status}`, type: 'api_error', code: null };
  }
}

/** Hashed bag-of-words embedding, L2-normalised. */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const v = new Float64Array(dimensions);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const w of words) {
    const h = createHash('sha256').update(w).digest();
    const idx = h.readUInt32LE(0) % dimensions;
    v[idx]! += h[4]! & 1 ? 1 : -1;
  }
  // A little text-specific noise keeps distinct texts distinct and empty text non-zero.
  const seed = createHash('sha256').update(text).digest();
  for (let i = 0; i < dimensions; i++) v[i]! += ((seed[i % 32]! / 255) - 0.5) * (words.length > 0 ? 0.01 : 1);
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return Array.from(v, (x) => x / norm);
}

function toBase64Float32(vec: number[]): string {
  const buf = Buffer.alloc(vec.length * 4);
  vec.forEach((x, i) => buf.writeFloatLE(x, i * 4));
  return buf.toString('base64');
}

function wordChunks(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? [];
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-request-id': randomId('req_'),
    'openai-processing-ms': '1',
    ...headers,
  });
  res.end(text);
}

export async function startFakeOpenAI(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const apiKey = opts.apiKey ?? 'sk-test-groundwork';
  const requests: FakeOpenAIRequest[] = [];
  let reply = opts.reply ?? ((req: FakeOpenAIRequest) => `Echo: ${req.lastUserText}`);
  const queuedFailures: FakeOpenAIFailure[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    const endpoint: FakeEndpoint =
      path === '/v1/chat/completions'
        ? 'chat.completions'
        : path === '/v1/responses'
          ? 'responses'
          : path === '/v1/embeddings'
            ? 'embeddings'
            : path === '/v1/models'
              ? 'models'
              : 'unknown';
    const raw = req.method === 'POST' ? await readBody(req) : '';
    let body: any;
    let invalidJson = false;
    if (raw !== '') {
      try {
        body = JSON.parse(raw);
      } catch {
        invalidJson = true;
      }
    }
    const messages = flattenMessages(endpoint, body);
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    const auth = req.headers.authorization;
    const record: FakeOpenAIRequest = {
      endpoint,
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      body,
      messages,
      lastUserText: lastUser?.content ?? '',
      stream: body?.stream === true,
      model: typeof body?.model === 'string' ? body.model : undefined,
      receivedAt: Date.now(),
      authorized: auth === `Bearer ${apiKey}`,
    };
    requests.push(record);

    await sleep(opts.delayMs ?? 0);

    if (!auth) {
      return sendJson(
        res,
        401,
        errorBody(
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
          'invalid_request_error',
          null,
        ),
      );
    }
    if (!record.authorized) {
      const given = auth.replace(/^Bearer\s+/i, '');
      const masked = given.length > 8 ? `${given.slice(0, 3)}*****${given.slice(-4)}` : '*****';
      return sendJson(
        res,
        401,
        errorBody(
          `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          'invalid_request_error',
          'invalid_api_key',
        ),
      );
    }
    if (endpoint === 'unknown' || (endpoint === 'models' ? req.method !== 'GET' : req.method !== 'POST')) {
      return sendJson(res, 404, errorBody(`Invalid URL (${req.method} ${path})`, 'invalid_request_error', null));
    }
    if (invalidJson || (req.method === 'POST' && (body === null || typeof body !== 'object'))) {
      return sendJson(
        res,
        400,
        errorBody(
          "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
          'invalid_request_error',
          null,
        ),
      );
    }

    const failure = opts.fail?.(record) ?? queuedFailures.shift();
    if (failure) {
      const d = defaultFailure(failure.status);
      const headers: Record<string, string> = {};
      if (failure.retryAfterMs !== undefined) {
        headers['retry-after-ms'] = String(failure.retryAfterMs);
        headers['retry-after'] = String(Math.ceil(failure.retryAfterMs / 1000));
      }
      if (failure.status === 429) {
        headers['x-ratelimit-limit-requests'] = '500';
        headers['x-ratelimit-remaining-requests'] = '0';
        headers['x-ratelimit-reset-requests'] = `${failure.retryAfterMs ?? 20}ms`;
      }
      return sendJson(
        res,
        failure.status,
        errorBody(failure.message ?? d.message, failure.type ?? d.type, failure.code !== undefined ? failure.code : d.code),
        headers,
      );
    }

    switch (endpoint) {
      case 'models':
        return sendJson(res, 200, {
          object: 'list',
          data: ['gpt-4o-mini', 'gpt-4o', 'text-embedding-3-small', 'text-embedding-3-large'].map((id) => ({
            id,
            object: 'model',
            created: 1_700_000_000,
            owned_by: 'system',
          })),
        });
      case 'embeddings':
        return handleEmbeddings(record, res);
      case 'chat.completions':
        return handleChat(record, res);
      case 'responses':
        return handleResponses(record, res);
    }
  };

  const handleEmbeddings = (r: FakeOpenAIRequest, res: ServerResponse) => {
    const input = r.body.input;
    const inputs: string[] | null =
      typeof input === 'string' ? [input] : Array.isArray(input) && input.every((x: unknown) => typeof x === 'string') ? input : null;
    if (!inputs || inputs.length === 0) {
      return sendJson(res, 400, errorBody("'input' must be a non-empty string or array of strings.", 'invalid_request_error', null, 'input'));
    }
    if (inputs.length > 2048) {
      return sendJson(res, 400, errorBody('Too many inputs. The max number of inputs is 2048.', 'invalid_request_error', null, 'input'));
    }
    const dims = typeof r.body.dimensions === 'number' ? r.body.dimensions : (opts.embeddingDimensions ?? 1536);
    const base64 = r.body.encoding_format === 'base64';
    const tokens = inputs.reduce((a, t) => a + countTokens(t), 0);
    return sendJson(res, 200, {
      object: 'list',
      data: inputs.map((text, index) => {
        const vec = fakeEmbedding(text, dims);
        return { object: 'embedding', index, embedding: base64 ? toBase64Float32(vec) : vec };
      }),
      model: r.model ?? 'text-embedding-3-small',
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  };

  const limitChunks = (text: string, maxTokens: unknown) => {
    let chunks = wordChunks(text);
    let finish: 'stop' | 'length' = 'stop';
    if (typeof maxTokens === 'number' && chunks.length > maxTokens) {
      chunks = chunks.slice(0, maxTokens);
      finish = 'length';
    }
    return { chunks, finish };
  };

  const startSse = (res: ServerResponse, record?: FakeOpenAIRequest) => {
    res.once('close', () => {
      if (record && !res.writableEnded) record.clientAborted = true;
    });
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-request-id': randomId('req_'),
    });
    res.flushHeaders();
  };

  const handleChat = async (r: FakeOpenAIRequest, res: ServerResponse) => {
    if (!Array.isArray(r.body.messages) || r.body.messages.length === 0) {
      return sendJson(res, 400, errorBody("Missing required parameter: 'messages'.", 'invalid_request_error', 'missing_required_parameter', 'messages'));
    }
    const text = await reply(r);
    const { chunks, finish } = limitChunks(text, r.body.max_completion_tokens ?? r.body.max_tokens);
    const id = randomId('chatcmpl-');
    const created = nowSeconds();
    const model = r.model ?? 'gpt-4o-mini';
    const promptTokens = countTokens(r.messages.map((m) => m.content).join('\n'));
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: chunks.length,
      total_tokens: promptTokens + chunks.length,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    };

    if (!r.stream) {
      return sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: chunks.join(''), refusal: null, annotations: [] },
            logprobs: null,
            finish_reason: finish,
          },
        ],
        usage,
        service_tier: 'default',
        system_fingerprint: 'fp_groundwork_fake',
      });
    }

    const includeUsage = r.body.stream_options?.include_usage === true;
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      service_tier: 'default',
      system_fingerprint: 'fp_groundwork_fake',
      choices,
      ...(includeUsage ? { usage: null } : {}),
      ...extra,
    });
    startSse(res, r);
    const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    send(chunk([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }]));
    for (let i = 0; i < chunks.length; i++) {
      await sleep(opts.chunkDelayMs ?? 0);
      if (opts.dropStreamAfterChunks !== undefined && i >= opts.dropStreamAfterChunks) {
        res.destroy();
        return;
      }
      send(chunk([{ index: 0, delta: { content: chunks[i] }, logprobs: null, finish_reason: null }]));
    }
    send(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finish }]));
    if (includeUsage) send(chunk([], { usage }));
    res.end('data: [DONE]\n\n');
  };

  const handleResponses = async (r: FakeOpenAIRequest, res: ServerResponse) => {
    if (r.body.input === undefined) {
      return sendJson(res, 400, errorBody("Missing required parameter: 'input'.", 'invalid_request_error', 'missing_required_parameter', 'input'));
    }
    const text = await reply(r);
    const { chunks, finish } = limitChunks(text, r.body.max_output_tokens);
    const id = randomId('resp_');
    const msgId = randomId('msg_');
    const createdAt = nowSeconds();
    const model = r.model ?? 'gpt-4o-mini';
    const inputTokens = countTokens(r.messages.map((m) => m.content).join('\n'));
    const usage = {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: chunks.length,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + chunks.length,
    };
    const fullText = chunks.join('');
    const part = (t: string) => ({ type: 'output_text', annotations: [], logprobs: [], text: t });
    const message = (status: 'in_progress' | 'completed' | 'incomplete', content: unknown[]) => ({
      id: msgId,
      type: 'message',
      status,
      content,
      role: 'assistant',
    });
    const response = (status: 'in_progress' | 'completed' | 'incomplete', output: unknown[], u: typeof usage | null) => ({
      id,
      object: 'response',
      created_at: createdAt,
      status,
      background: false,
      error: null,
      incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
      instructions: r.body.instructions ?? null,
      max_output_tokens: r.body.max_output_tokens ?? null,
      model,
      output,
      parallel_tool_calls: true,
      previous_response_id: r.body.previous_response_id ?? null,
      reasoning: { effort: null, summary: null },
      service_tier: 'default',
      store: r.body.store ?? true,
      temperature: r.body.temperature ?? 1,
      text: { format: { type: 'text' } },
      tool_choice: 'auto',
      tools: [],
      top_p: r.body.top_p ?? 1,
      truncation: 'disabled',
      usage: u,
      user: null,
      metadata: {},
    });
    const finalStatus = finish === 'length' ? 'incomplete' : 'completed';

    if (!r.stream) {
      return sendJson(res, 200, response(finalStatus, [message(finalStatus, [part(fullText)])], usage));
    }

    startSse(res, r);
    let seq = 0;
    const send = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
    send('response.created', { response: response('in_progress', [], null) });
    send('response.in_progress', { response: response('in_progress', [], null) });
    send('response.output_item.added', { output_index: 0, item: message('in_progress', []) });
    send('response.content_part.added', { item_id: msgId, output_index: 0, content_index: 0, part: part('') });
    for (let i = 0; i < chunks.length; i++) {
      await sleep(opts.chunkDelayMs ?? 0);
      if (opts.dropStreamAfterChunks !== undefined && i >= opts.dropStreamAfterChunks) {
        res.destroy();
        return;
      }
      send('response.output_text.delta', { item_id: msgId, output_index: 0, content_index: 0, delta: chunks[i], logprobs: [] });
    }
    send('response.output_text.done', { item_id: msgId, output_index: 0, content_index: 0, text: fullText, logprobs: [] });
    send('response.content_part.done', { item_id: msgId, output_index: 0, content_index: 0, part: part(fullText) });
    send('response.output_item.done', { output_index: 0, item: message(finalStatus, [part(fullText)]) });
    send(finalStatus === 'completed' ? 'response.completed' : 'response.incomplete', {
      response: response(finalStatus, [message(finalStatus, [part(fullText)])], usage),
    });
    res.end();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        sendJson(res, 500, errorBody(`Fake server error: ${err instanceof Error ? err.message : String(err)}`, 'server_error', null));
      } else {
        res.destroy();
      }
    });
  });
  // The real API (behind its edge proxy) keeps an idle connection open for minutes; Node's 5 s default
  // let a client on a loaded machine reuse a socket the fake had just closed (ECONNRESET).
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey,
    requests,
    setReply(fn) {
      reply = fn;
    },
    failNext(failure, count = 1) {
      for (let i = 0; i < count; i++) queuedFailures.push(failure);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
