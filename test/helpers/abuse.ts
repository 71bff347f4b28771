/**
 * The abuse driver behind bench/abuse.ts (see docs/security.md for why it is not yet in `npm test`). It sends generated hostile requests to a real server process, over
 * every REST route, GraphQL operation and tRPC procedure, keyed, keyless and with a junk key, and
 * checks each answer: never a 5xx, never a non-JSON error. It also measures another
 * organisation's latency while this goes on.
 */
import net from 'node:net';
import fc from 'fast-check';
import { deflateBomb, makeDocx } from '../ingest/zip-fixture';

export type Target = { url: string; key: string; kbId: string; docId: string };

const ROUTES: Array<[method: string, path: string]> = [
  ['GET', '/api/kbs'],
  ['POST', '/api/kbs'],
  ['GET', '/api/kbs/{kb}'],
  ['DELETE', '/api/kbs/{junk}'],
  ['GET', '/api/kbs/{kb}/documents'],
  ['GET', '/api/kbs/{kb}/documents/{doc}'],
  ['DELETE', '/api/kbs/{kb}/documents/{junk}'],
  ['POST', '/api/kbs/{kb}/documents/{doc}/reingest'],
  ['POST', '/api/ingest/upload'],
  ['POST', '/api/ingest/url'],
  ['POST', '/api/rag/search'],
  ['POST', '/api/rag/chat'],
  ['GET', '/api/openapi.json'],
  ['POST', '/api/widget/session'],
  ['POST', '/api/widget/chat'],
  ['POST', '/api/widget/history'],
  ['POST', '/graphql'],
  ['GET', '/graphql'],
  ['GET', '/trpc/kbs.list'],
  ['GET', '/trpc/kbs.get'],
  ['POST', '/trpc/kbs.create'],
  ['POST', '/trpc/kbs.update'],
  ['POST', '/trpc/documents.upload'],
  ['POST', '/trpc/documents.ingestUrl'],
  ['POST', '/trpc/rag.search'],
  ['POST', '/trpc/rag.chat'],
  ['GET', '/trpc/chat.messages'],
  ['POST', '/trpc/org.updateSettings'],
];

const GRAPHQL_OPERATIONS = [
  'query($id: ID!) { knowledgeBase(id: $id) { id name documents { id status } } }',
  'query($k: ID!, $q: String!, $n: Int) { search(kbId: $k, query: $q, topK: $n) { answer citations { marker } } }',
  'mutation($m: String!, $k: ID!) { chat(kbId: $k, message: $m) { response sessionId } }',
  'mutation($i: CreateKnowledgeBaseInput!) { createKnowledgeBase(input: $i) { id } }',
  'mutation($i: IngestUrlInput!) { ingestUrl(input: $i) { id } }',
  '{ organization { slug settings { allowedOrigins } } }',
  '{ __schema { types { name fields { name type { name ofType { name } } } } } }',
];

/** Strings that have broken services before: NUL, lone surrogates, huge, control and RTL characters. */
const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('\u0000', '\uD800', 'a\uDFFFb', '%00', '../../etc/passwd', '{{7*7}}', "'; drop table kbs; --", '\u202Eevil', '/{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}/**'),
  fc.nat({ max: 2_000_000 }).map((n) => 'x'.repeat(n)),
);
const nastyValue: fc.Arbitrary<unknown> = fc.oneof(nasty, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(nasty, { maxLength: 3 }), fc.dictionary(nasty, nasty, { maxKeys: 3 }));
const fieldNames = fc.constantFrom('name', 'description', 'kb_id', 'query', 'message', 'session_id', 'top_k', 'stream', 'url', 'include', 'exclude', 'max_pages', 'org', 'kb', 'id', 'query', 'variables', 'kbId');

export type Body = { contentType?: string; data?: string | Uint8Array; label: string };

function multipart(parts: Array<{ name: string; filename?: string; content: string | Uint8Array }>, cutAt?: number): Body {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--XYZ\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}\r\n\r\n`));
    chunks.push(Buffer.from(p.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from('--XYZ--\r\n'));
  const all = Buffer.concat(chunks);
  return { contentType: 'multipart/form-data; boundary=XYZ', data: cutAt === undefined ? all : all.subarray(0, cutAt % all.length), label: cutAt === undefined ? 'multipart' : 'truncated multipart' };
}

export function bodies(target: Target): fc.Arbitrary<Body> {
  const json = (v: unknown, label: string): Body => ({ contentType: 'application/json', data: JSON.stringify(v) ?? 'null', label });
  return fc.oneof(
    fc.constant<Body>({ label: 'no body' }),
    fc.jsonValue().map((v) => json(v, 'random JSON')),
    fc.dictionary(fieldNames, nastyValue, { maxKeys: 6 }).map((o) => json({ kb_id: target.kbId, ...o }, 'adversarial fields')),
    fc.record({ query: fc.constantFrom(...GRAPHQL_OPERATIONS), variables: fc.dictionary(fc.constantFrom('id', 'k', 'q', 'n', 'm', 'i'), nastyValue) }).map((o) => json(o, 'GraphQL operation')),
    fc.nat({ max: 20_000 }).map((n) => json({ query: `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }` }, 'aliases')),
    fc.nat({ max: 5_000 }).map((d) => json({ query: `${'{ a '.repeat(d)}${'}'.repeat(d)}` }, 'deep nesting')),
    fc.string().map((s): Body => ({ contentType: 'application/json', data: `{"name": "${s}`, label: 'malformed JSON' })),
    fc.uint8Array({ maxLength: 2_000 }).map((b): Body => ({ contentType: fc.sample(fc.constantFrom('application/json', 'text/plain', 'application/octet-stream', 'multipart/form-data'), 1)[0], data: b, label: 'random bytes' })),
    fc.nat().map((cut) => multipart([{ name: 'kb_id', content: target.kbId }, { name: 'file', filename: 'a.txt', content: 'hello world' }], cut)),
    nasty.map((s) => multipart([{ name: 'kb_id', content: s.slice(0, 1000) }, { name: 'file', filename: s.slice(0, 200), content: 'hello' }])),
    fc.constant(multipart([{ name: 'kb_id', content: target.kbId }, { name: 'file', filename: 'bomb.docx', content: makeDocx({ deflated: deflateBomb(300), declaredSize: 1024 }) }])),
  );
}

export type AbuseRequest = { route: [string, string]; auth: 'key' | 'none' | 'junk'; body: Body; query: string | null };

export const requests = (target: Target): fc.Arbitrary<AbuseRequest> =>
  fc.record({
    route: fc.constantFrom(...ROUTES),
    auth: fc.constantFrom<'key' | 'none' | 'junk'>('key', 'key', 'none', 'junk'),
    body: bodies(target),
    query: fc.option(nasty.map((s) => `input=${encodeURIComponent(JSON.stringify({ id: s.slice(0, 500) }).replace(/[\uD800-\uDFFF]/g, ''))}`)),
  });

export type Outcome = { status: number; ms: number; problem: string | null; label: string };

/** Sends one generated request and says what is wrong with the answer, if anything. */
export async function send(target: Target, r: AbuseRequest): Promise<Outcome> {
  const [method, template] = r.route;
  const path = template.replace('{kb}', target.kbId).replace('{doc}', target.docId).replace('{junk}', 'kb_doesnotexist');
  const headers: Record<string, string> = {};
  if (r.auth === 'key') headers['x-api-key'] = target.key;
  if (r.auth === 'junk') headers['x-api-key'] = 'gw_junk';
  if (path.startsWith('/api/widget')) headers.origin = 'https://site.example';
  const withBody = method !== 'GET' && r.body.data !== undefined;
  if (withBody && r.body.contentType) headers['content-type'] = r.body.contentType;
  const started = performance.now();
  let res: Response;
  try {
    res = await fetch(`${target.url}${path}${r.query && method === 'GET' ? `?${r.query}` : ''}`, {
      method,
      headers,
      body: withBody ? (r.body.data as BodyInit) : undefined,
      signal: AbortSignal.timeout(60_000),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const size = typeof r.body.data === 'string' ? Buffer.byteLength(r.body.data) : (r.body.data?.length ?? 0);
    // Past the body limit the server answers 413 at once and closes the connection once it has
    // drained what it will: a client still sending may see the reset instead of the answer (RFC 9112 9.6).
    if (withBody && size > 1024 * 1024 && /ECONNRESET|EPIPE|other side closed|SocketError/i.test(`${cause?.code} ${cause?.message}`)) {
      return { status: 413, ms: performance.now() - started, problem: null, label: r.body.label };
    }
    return { status: 0, ms: performance.now() - started, problem: `${method} ${template} [${r.auth}, ${r.body.label}, ${size} bytes] -> no answer: ${(err as Error).message} ${cause?.code ?? ''} ${cause?.message ?? ''}`, label: r.body.label };
  }
  const text = await res.text();
  const ms = performance.now() - started;
  const type = res.headers.get('content-type') ?? '';
  let problem: string | null = null;
  if (res.status >= 500) problem = `status ${res.status}: ${text.slice(0, 300)}`;
  else if (res.status >= 400 || !/event-stream|html/.test(type)) {
    try {
      const body = JSON.parse(text);
      if (res.status >= 400 && !(body.error?.code || body.error?.data?.app_code || body.errors?.[0]?.extensions?.app_code)) problem = `error without a code: ${text.slice(0, 300)}`;
    } catch {
      problem = `non-JSON ${res.status} (${type}): ${text.slice(0, 200)}`;
    }
  }
  return { status: res.status, ms, problem: problem && `${method} ${template} [${r.auth}, ${r.body.label}] -> ${problem}`, label: r.body.label };
}

/** A client that sends its headers one line at a time and never finishes; resolves when the server hangs up. */
export function slowloris(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  socket.write('POST /api/kbs HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n');
  const drip = setInterval(() => socket.writable && socket.write('x-drip: 1\r\n'), 500);
  return new Promise((resolve) => {
    let data = '';
    socket.on('data', (d) => (data += d));
    const done = () => {
      clearInterval(drip);
      resolve(data);
    };
    socket.on('close', done);
    socket.on('error', done);
  });
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Another organisation's requests while the abuse runs: GET /api/kbs and a search, in turn. */
export function measureNeighbour(target: Target, stop: AbortSignal): Promise<{ kbs: number[]; search: number[]; failures: string[] }> {
  const out = { kbs: [] as number[], search: [] as number[], failures: [] as string[] };
  return (async () => {
    while (!stop.aborted) {
      for (const [kind, init] of [
        ['kbs', { method: 'GET' }],
        ['search', { method: 'POST', body: JSON.stringify({ kb_id: target.kbId, query: 'How long do refunds take?' }) }],
      ] as const) {
        const started = performance.now();
        const res = await fetch(`${target.url}${kind === 'kbs' ? '/api/kbs' : '/api/rag/search'}`, {
          ...init,
          headers: { 'x-api-key': target.key, 'content-type': 'application/json' },
        }).catch((e: Error) => e);
        if (res instanceof Error || res.status !== 200) {
          const cause = res instanceof Error ? (res.cause as { code?: string; message?: string } | undefined) : undefined;
          out.failures.push(res instanceof Error ? `${kind}: ${res.message} ${cause?.code ?? ''} ${cause?.message ?? ''}` : `${kind} ${res.status}`);
        }
        else await res.arrayBuffer();
        out[kind].push(performance.now() - started);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return out;
  })();
}
