/**
 * A string PostgreSQL cannot store faithfully (one with a NUL, or a lone UTF-16 surrogate) in any
 * field of any transport is a 400 invalid_input naming the field, never a 500. Generated: any
 * string with such a character somewhere, in every string field we accept, REST, GraphQL, tRPC and
 * the keyless widget alike. Text extracted from documents is cleaned instead (storableText).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storableText } from '../../src/validation';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
let apiKey: string;
let kbId: string;
let orgSlug: string;
beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000', WIDGET_RATE_LIMIT_PER_MINUTE: '100000' } });
  const created = await createOrgWithKey(t.deps);
  apiKey = created.api_key;
  orgSlug = created.org.slug;
  kbId = (await restClient(t.app, apiKey).post('/api/kbs', { name: 'strings' })).body.kb.id;
});
afterAll(() => t?.close());

/** Any string with at least one NUL or lone surrogate in it. */
const unstorable = fc
  .tuple(fc.string({ maxLength: 20 }), fc.constantFrom('\u0000', '\uD800', '\uDFFF', 'a\uDBFFb', '\u0000\u0000'), fc.string({ maxLength: 20 }))
  .map(([a, bad, b]) => a + bad + b);

type Call = (s: string) => Promise<{ status: number; code: unknown }>;

async function send(path: string, body: unknown, opts: { key?: boolean; method?: string } = {}) {
  const res = await t.app.fetch(
    new Request(`http://groundwork.test${path}`, {
      method: opts.method ?? 'POST',
      headers: { 'content-type': 'application/json', ...(opts.key === false ? {} : { 'x-api-key': apiKey }) },
      ...(opts.method === 'GET' ? {} : { body: JSON.stringify(body) }),
    }),
  );
  expect(res.headers.get('content-type')).toMatch(/json/);
  return { status: res.status, json: (await res.json()) as any };
}
const rest = (path: string, body: (s: string) => unknown): Call => async (s) => {
  const { status, json } = await send(path, body(s));
  return { status, code: json.error?.code };
};
const gql = (query: string, variables: (s: string) => unknown): Call => async (s) => {
  const { json } = await send('/graphql', { query, variables: variables(s) });
  return { status: json.errors ? 400 : 200, code: json.errors?.[0]?.extensions?.app_code };
};
const trpc = (proc: string, input: (s: string) => unknown): Call => async (s) => {
  const { status, json } = await send(`/trpc/${proc}`, input(s));
  return { status, code: json.error?.data?.app_code };
};

const calls: Record<string, Call> = {
  'REST POST /api/kbs name': rest('/api/kbs', (s) => ({ name: s })),
  'REST POST /api/kbs description': rest('/api/kbs', (s) => ({ name: 'ok', description: s })),
  'REST POST /api/rag/search query': rest('/api/rag/search', (s) => ({ kb_id: kbId, query: s })),
  'REST POST /api/rag/chat session_id': rest('/api/rag/chat', (s) => ({ kb_id: kbId, message: 'hi', session_id: s })),
  'REST POST /api/ingest/url include': rest('/api/ingest/url', (s) => ({ kb_id: kbId, url: 'https://example.com/', include: [s] })),
  'REST GET /api/kbs/:id': async (s) => {
    // A lone surrogate cannot be percent-encoded as UTF-8; its CESU-8 bytes are what a client would send.
    const path = Array.from(s, (ch) => (/[\uD800-\uDFFF]/.test(ch) ? '%ED%A0%80' : encodeURIComponent(ch))).join('');
    const { status, json } = await send(`/api/kbs/${path}`, null, { method: 'GET' });
    // Undecodable bytes stay percent-encoded: an id that cannot exist.
    return status === 404 && /%ED%A0%80/.test(path) ? { status: 400, code: 'invalid_input' } : { status, code: json.error?.code };
  },
  'GraphQL createKnowledgeBase name': gql('mutation($n: String!) { createKnowledgeBase(input: {name: $n}) { id } }', (s) => ({ n: s })),
  'GraphQL search query': gql('query($k: ID!, $q: String!) { search(kbId: $k, query: $q) { answer } }', (s) => ({ k: kbId, q: s })),
  'GraphQL knowledgeBase id': gql('query($k: ID!) { knowledgeBase(id: $k) { id } }', (s) => ({ k: s })),
  'tRPC kbs.create name': trpc('kbs.create', (s) => ({ name: s })),
  'tRPC rag.search query': trpc('rag.search', (s) => ({ kb_id: kbId, query: s })),
  'tRPC kbs.update description': trpc('kbs.update', (s) => ({ id: kbId, description: s })),
  'widget session org (keyless)': async (s) => {
    const { status, json } = await send('/api/widget/session', { org: s, kb: kbId }, { key: false });
    return { status, code: json.error?.code };
  },
  'widget session kb (keyless)': async (s) => {
    const { status, json } = await send('/api/widget/session', { org: orgSlug, kb: s }, { key: false });
    return { status, code: json.error?.code };
  },
};

describe('NUL and lone surrogates in any string field', () => {
  for (const [name, call] of Object.entries(calls)) {
    it(`${name}: 400 invalid_input (or 404 for an id that cannot exist), never a 500`, async () => {
      await fc.assert(
        fc.asyncProperty(unstorable, async (s) => {
          const { status, code } = await call(s);
          expect(status, JSON.stringify(s)).toBe(400);
          expect(code, JSON.stringify(s)).toBe('invalid_input');
        }),
        { numRuns: 12 },
      );
    });
  }

  it('a key with a NUL inside an object is refused too', async () => {
    const res = await send('/api/kbs', { name: 'ok', 'x\u0000': 1 });
    expect(res.status).toBe(400);
  });

  it('extracted text is cleaned, not refused', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 50 }), (s) => {
        const clean = storableText(s);
        expect(clean.includes('\u0000')).toBe(false);
        expect(() => encodeURIComponent(clean)).not.toThrow(); // throws on a lone surrogate
      }),
      { numRuns: 300 },
    );
  });
});
