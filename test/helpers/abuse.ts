/**
 * The abuse driver behind test/e2e/abuse.test.ts and bench/abuse.ts. It sends generated hostile
 * requests to a real server process, to every endpoint the service itself lists
 * (./abuse-endpoints.ts), keyed, keyless and with a junk key, and checks each answer: never a 5xx,
 * never a non-JSON error. It also measures another organisation's latency while this goes on.
 */
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLInputType,
} from 'graphql';
import { pdfWithContentStreams, textContent } from '../ingest/pdf-fixture';
import { deflateBomb, makeDocx, makeZip } from '../ingest/zip-fixture';
import { graphqlDocument, type Endpoint, type GraphQLEndpoint } from './abuse-endpoints';
import type { Target } from './abuse-target';
import { measureNeighbourSamples, type NeighbourSamples } from './neighbour-process';

export type { Target };

/** Strings that have broken services before: NUL, lone surrogates, huge, control and RTL characters. */
const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('\u0000', '\uD800', 'a\uDFFFb', '%00', '../../etc/passwd', '{{7*7}}', "'; drop table kbs; --", '\u202Eevil', '/{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}/**'),
  fc.nat({ max: 2_000_000 }).map((n) => 'x'.repeat(n)),
);
const nastyValue: fc.Arbitrary<unknown> = fc.oneof(nasty, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(nasty, { maxLength: 3 }), fc.dictionary(nasty, nasty, { maxKeys: 3 }));
const GENERIC_FIELDS = ['name', 'description', 'kb_id', 'query', 'message', 'session_id', 'top_k', 'stream', 'url', 'include', 'exclude', 'max_pages', 'id', 'doc_id', 'cursor', 'limit'];
const JUNK_ID = 'kb_doesnotexist';

export type Body = { contentType?: string; encoding?: string; accept?: string; data?: string | Uint8Array; label: string };

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

// Built once: a DOCX whose document.xml inflates to 300 MB, a ZIP of a 300 MB member, a PDF whose
// content stream inflates to 300 MB, and a gzip body of 64 MB of zeros (the server does not inflate
// request bodies: it must refuse it as JSON).
let bombs: { docx: Uint8Array; zip: Uint8Array; pdf: Uint8Array; gzip: Uint8Array } | null = null;
function bombBodies() {
  bombs ??= {
    docx: makeDocx({ deflated: deflateBomb(300), declaredSize: 1024 }),
    zip: makeZip({ 'a.txt': { deflated: deflateBomb(300), declaredSize: 10 } }),
    pdf: pdfWithContentStreams([textContent('Hello', 300)]),
    gzip: gzipSync(Buffer.alloc(64 * 1024 * 1024)),
  };
  return bombs;
}

/** Bodies any endpoint may get, whatever it expects. */
export function bodies(target: Target, fields: string[] = GENERIC_FIELDS): fc.Arbitrary<Body> {
  const json = (v: unknown, label: string): Body => ({ contentType: 'application/json', data: JSON.stringify(v) ?? 'null', label });
  const names = fc.constantFrom(...new Set([...fields, ...GENERIC_FIELDS]));
  const b = bombBodies();
  return fc.oneof(
    fc.constant<Body>({ label: 'no body' }),
    fc.jsonValue().map((v) => json(v, 'random JSON')),
    fc.dictionary(names, nastyValue, { maxKeys: 6 }).map((o) => json({ kb_id: target.kbId, ...o }, 'adversarial fields')),
    fc.dictionary(names, nastyValue, { maxKeys: 6 }).map((o) => json(o, 'wrong types')),
    fc.nat({ max: 20_000 }).map((n) => json({ query: `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }` }, 'aliases')),
    fc.nat({ max: 5_000 }).map((d) => json({ query: `${'{ a '.repeat(d)}${'}'.repeat(d)}` }, 'deep nesting')),
    fc.string().map((s): Body => ({ contentType: 'application/json', data: `{"name": "${s}`, label: 'malformed JSON' })),
    fc.tuple(fc.uint8Array({ maxLength: 2_000 }), fc.constantFrom('application/json', 'text/plain', 'application/octet-stream', 'multipart/form-data', 'application/x-www-form-urlencoded')).map(
      ([bytes, contentType]): Body => ({ contentType, data: bytes, label: 'random bytes' }),
    ),
    fc.nat().map((cut) => multipart([{ name: 'kb_id', content: target.kbId }, { name: 'file', filename: 'a.txt', content: 'hello world' }], cut)),
    nasty.map((s) => multipart([{ name: 'kb_id', content: s.slice(0, 1000) }, { name: 'file', filename: s.slice(0, 200), content: 'hello' }])),
    fc.constant({ ...multipart([{ name: 'kb_id', content: target.kbId }, { name: 'file', filename: 'bomb.docx', content: b.docx }]), label: 'DOCX bomb' }),
    fc.constant({ ...multipart([{ name: 'kb_id', content: target.kbId }, { name: 'file', filename: 'bomb.zip', content: b.zip }]), label: 'ZIP bomb' }),
    fc.constant({ ...multipart([{ name: 'kb_id', content: target.kbId }, { name: 'file', filename: 'bomb.pdf', content: b.pdf }]), label: 'PDF bomb' }),
    fc.constant<Body>({ contentType: 'application/json', encoding: 'gzip', data: b.gzip, label: 'gzip bomb' }),
  );
}

/** Values for a GraphQL input type: mostly of the right type with hostile content, sometimes wrong. */
function graphqlValue(type: GraphQLInputType, ids: fc.Arbitrary<string>, depth = 0): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return graphqlValue(type.ofType, ids, depth);
  const typed = (): fc.Arbitrary<unknown> => {
    if (isListType(type)) return fc.array(graphqlValue(type.ofType, ids, depth + 1), { maxLength: 3 });
    if (isInputObjectType(type)) {
      if (depth > 3) return fc.constant({});
      const fields = Object.values(type.getFields());
      return fc.record(Object.fromEntries(fields.map((f) => [f.name, graphqlValue(f.type, ids, depth + 1)])), { requiredKeys: [] });
    }
    if (isEnumType(type)) return fc.constantFrom(...type.getValues().map((v) => v.name));
    switch (getNamedType(type).name) {
      case 'ID':
        return fc.oneof(ids, nasty);
      case 'String':
        return nasty;
      case 'Int':
        return fc.oneof(fc.integer(), fc.integer({ min: 1, max: 60 }));
      case 'Float':
        return fc.double();
      case 'Boolean':
        return fc.boolean();
      default:
        return nastyValue;
    }
  };
  return fc.oneof({ arbitrary: typed(), weight: 4 }, { arbitrary: nastyValue, weight: 1 });
}

/** Deleting or revoking with the target's real ids would only make the rest of the run 404s. */
const destructive = (name: string) => /^(delete|revoke|sign)/i.test(name) || /\.(delete|deleteSession)$/.test(name);

function graphqlBodies(e: GraphQLEndpoint, target: Target): fc.Arbitrary<Body> {
  const ids = destructive(e.field.name) ? fc.constant(JUNK_ID) : fc.constantFrom(target.kbId, target.docId, JUNK_ID);
  const variables = fc.record(Object.fromEntries(e.field.args.map((a) => [a.name, graphqlValue(a.type, ids)])), { requiredKeys: [] });
  const query = graphqlDocument(e);
  const accept = e.operation === 'subscription' ? 'text/event-stream' : 'application/json';
  const hasFile = e.field.args.some((a) => getNamedType(a.type).name === 'File');
  const operation = variables.map((v): Body => ({ contentType: 'application/json', accept, data: JSON.stringify({ query, variables: v }), label: `GraphQL ${e.field.name}` }));
  if (!hasFile) return operation;
  // The GraphQL multipart request spec: operations, map, then the file; sometimes cut short.
  const upload = fc.tuple(variables, fc.option(fc.nat())).map(([v, cut]): Body => {
    const fileArg = e.field.args.find((a) => getNamedType(a.type).name === 'File')!;
    const list = isListType(isNonNullType(fileArg.type) ? fileArg.type.ofType : fileArg.type);
    const body = multipart(
      [
        { name: 'operations', content: JSON.stringify({ query, variables: { ...v, [fileArg.name]: list ? [null] : null } }) },
        { name: 'map', content: JSON.stringify({ 0: [`variables.${fileArg.name}${list ? '.0' : ''}`] }) },
        { name: '0', filename: 'a.txt', content: 'hello world' },
      ],
      cut ?? undefined,
    );
    return { ...body, label: `GraphQL multipart ${e.field.name}${cut === null ? '' : ' (truncated)'}` };
  });
  return fc.oneof(operation, upload);
}

export type AbuseRequest = { endpoint: Endpoint; method: string; path: string; auth: 'key' | 'none' | 'junk'; body: Body };

const pathParam = (target: Target, destructiveRoute: boolean) =>
  destructiveRoute ? fc.constant(JUNK_ID) : fc.oneof({ arbitrary: fc.constantFrom(target.kbId, target.docId), weight: 3 }, { arbitrary: nasty.map((s) => encodeURIComponent(s.slice(0, 300).replace(/[\uD800-\uDFFF]/g, ''))), weight: 1 });

/** Generated requests to one endpoint. */
export function requestsFor(endpoint: Endpoint, target: Target): fc.Arbitrary<AbuseRequest> {
  const auth = fc.constantFrom<AbuseRequest['auth']>('key', 'key', 'none', 'junk');
  const query = fc.option(nasty.map((s) => encodeURIComponent(s.slice(0, 500).replace(/[\uD800-\uDFFF]/g, ''))));
  if (endpoint.transport === 'rest') {
    const params = endpoint.path.match(/\{\w+\}/g) ?? [];
    return fc
      .record({ auth, body: bodies(target, endpoint.fields), values: fc.tuple(...params.map(() => pathParam(target, endpoint.method === 'DELETE'))), query })
      .map(({ auth, body, values, query }) => {
        let path = endpoint.path;
        params.forEach((p, i) => (path = path.replace(p, values[i]!)));
        if (endpoint.method === 'GET' && query) path += `?cursor=${query}&limit=${query}`;
        return { endpoint, method: endpoint.method, path, auth, body };
      });
  }
  if (endpoint.transport === 'graphql') {
    return fc.record({ auth, body: fc.oneof({ arbitrary: graphqlBodies(endpoint, target), weight: 3 }, { arbitrary: bodies(target), weight: 1 }), get: fc.boolean() }).map(({ auth, body, get }) => {
      // GET carries the operation in the query string (queries only; yoga refuses mutations over GET).
      if (get && body.label.startsWith('GraphQL ') && typeof body.data === 'string') {
        const { query: q, variables } = JSON.parse(body.data) as { query: string; variables: unknown };
        return { endpoint, method: 'GET', path: `/graphql?query=${encodeURIComponent(q)}&variables=${encodeURIComponent(JSON.stringify(variables).replace(/[\uD800-\uDFFF]/g, ''))}`, auth, body: { label: body.label, accept: body.accept } };
      }
      return { endpoint, method: 'POST', path: '/graphql', auth, body };
    });
  }
  const input = fc.oneof(
    fc.dictionary(fc.constantFrom(...GENERIC_FIELDS), nastyValue, { maxKeys: 5 }).map((o) => ({ kb_id: target.kbId, ...o })),
    fc.jsonValue(),
  );
  if (endpoint.type === 'query') {
    return fc.record({ auth, input, raw: query }).map(({ auth, input, raw }) => ({
      endpoint,
      method: 'GET',
      path: `/trpc/${endpoint.path}?input=${raw ?? encodeURIComponent((JSON.stringify(input) ?? 'null').replace(/[\uD800-\uDFFF]/g, ''))}`,
      auth,
      body: { label: raw ? 'raw query string' : 'tRPC input' },
    }));
  }
  const destructiveRoute = destructive(endpoint.path);
  const typed = input.map((i): Body => ({ contentType: 'application/json', data: JSON.stringify(destructiveRoute ? { ...(i as object), id: JUNK_ID, kb_id: JUNK_ID } : i), label: 'tRPC input' }));
  return fc.record({ auth, body: fc.oneof(typed, bodies(destructiveRoute ? { ...target, kbId: JUNK_ID } : target)) }).map(({ auth, body }) => ({ endpoint, method: 'POST', path: `/trpc/${endpoint.path}`, auth, body }));
}

/** `perEndpoint` generated requests for EVERY endpoint (none can be skipped by chance), shuffled. */
export function sampleRequests(endpoints: Endpoint[], target: Target, perEndpoint: number, seed: number): AbuseRequest[] {
  const all = endpoints.flatMap((e, i) => fc.sample(requestsFor(e, target), { numRuns: perEndpoint, seed: seed + i }));
  return fc.sample(fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }), { numRuns: 1, seed })[0]!;
}

export type Outcome = { status: number; ms: number; problem: string | null; label: string; unmatched: boolean };

/** Sends one generated request and says what is wrong with the answer, if anything. */
export async function send(target: Target, r: AbuseRequest): Promise<Outcome> {
  const { method, path } = r;
  const headers: Record<string, string> = {};
  if (r.auth === 'key') headers['x-api-key'] = target.key;
  if (r.auth === 'junk') headers['x-api-key'] = 'gw_junk';
  if (path.startsWith('/api/widget')) headers.origin = 'https://site.example';
  if (r.body.accept) headers.accept = r.body.accept;
  const withBody = method !== 'GET' && r.body.data !== undefined;
  if (withBody && r.body.contentType) headers['content-type'] = r.body.contentType;
  if (withBody && r.body.encoding) headers['content-encoding'] = r.body.encoding;
  const what = `${r.endpoint.name}: ${method} ${path.slice(0, 120)} [${r.auth}, ${r.body.label}]`;
  const started = performance.now();
  let res: Response;
  try {
    res = await fetch(`${target.url}${path}`, {
      method,
      headers,
      body: withBody ? (r.body.data as BodyInit) : undefined,
      signal: AbortSignal.timeout(60_000),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const size = typeof r.body.data === 'string' ? Buffer.byteLength(r.body.data) : (r.body.data?.length ?? 0);
    // A request refused before its body is read (401, 429) is answered at once and the connection
    // closed after a short drain: a client still sending may see the reset (RFC 9112 9.6). An
    // oversized body is read to its end first (src/http/body-limit.ts), unless past 1 GB or 10 s.
    const cutOff = /ECONNRESET|EPIPE|other side closed|SocketError/i.test(`${cause?.code} ${cause?.message}`);
    if (withBody && size > 1024 * 1024 && cutOff) {
      return { status: 413, ms: performance.now() - started, problem: null, label: r.body.label, unmatched: false };
    }
    // The same for a request line past Node's 16 KB header limit: 431 and close, while the client still writes.
    if (path.length > 16 * 1024 && cutOff) return { status: 431, ms: performance.now() - started, problem: null, label: r.body.label, unmatched: false };
    return { status: 0, ms: performance.now() - started, problem: `${what} ${size} bytes -> no answer: ${(err as Error).message} ${cause?.code ?? ''} ${cause?.message ?? ''}`, label: r.body.label, unmatched: false };
  }
  const text = await res.text();
  const ms = performance.now() - started;
  const type = res.headers.get('content-type') ?? '';
  let problem: string | null = null;
  if (res.status >= 500) problem = `status ${res.status}: ${text.slice(0, 300)}`;
  else if (/event-stream/.test(type)) {
    // GraphQL over SSE reports a refused operation as an event: its data is a coded JSON error.
    for (const data of text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5))) {
      try {
        const event = data.trim() ? JSON.parse(data) : {};
        if (res.status >= 400 && event.errors && !event.errors[0]?.extensions?.app_code) problem = `SSE error without a code: ${data.slice(0, 300)}`;
      } catch {
        problem = `non-JSON SSE data (${res.status}): ${data.slice(0, 200)}`;
      }
    }
  } else if (res.status >= 400 || !(/html/.test(type) || /^attachment/.test(res.headers.get('content-disposition') ?? ''))) {
    // A success is JSON, a page, or a file download (an export); every error is coded JSON.
    try {
      const body = JSON.parse(text);
      if (res.status >= 400 && !(body.error?.code || body.error?.data?.app_code || body.errors?.[0]?.extensions?.app_code)) problem = `error without a code: ${text.slice(0, 300)}`;
    } catch {
      problem = `non-JSON ${res.status} (${type}): ${text.slice(0, 200)}`;
    }
  }
  // An endpoint the route table does not know (a discovery bug, not an answer of the endpoint).
  const unmatched = res.status === 404 && /No route for|No procedure found/.test(text);
  return { status: res.status, ms, problem: problem && `${what} -> ${problem}`, label: r.body.label, unmatched };
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
export function measureNeighbour(target: Target, stop: AbortSignal): Promise<NeighbourSamples> {
  return measureNeighbourSamples(target, () => stop.aborted);
}
