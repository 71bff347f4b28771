/** Thin clients over app.fetch for the three transports, used by tests to speak like real callers. */
import type { App } from '../../src/app';

const BASE = 'http://groundwork.test';

export type JsonResponse<T = any> = { status: number; headers: Headers; body: T };

async function toJson<T>(res: Response): Promise<JsonResponse<T>> {
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // keep the raw text: a test asserting JSON will fail loudly
  }
  return { status: res.status, headers: res.headers, body };
}

export function restClient(app: App, apiKey?: string) {
  const headers = (extra: Record<string, string> = {}) => ({ ...(apiKey ? { 'x-api-key': apiKey } : {}), ...extra });
  return {
    raw: (path: string, init: RequestInit = {}) =>
      app.fetch(new Request(`${BASE}${path}`, { ...init, headers: { ...headers(), ...(init.headers as Record<string, string>) } })),
    get: async <T = any>(path: string) => toJson<T>(await app.fetch(new Request(`${BASE}${path}`, { headers: headers() }))),
    delete: async <T = any>(path: string) => toJson<T>(await app.fetch(new Request(`${BASE}${path}`, { method: 'DELETE', headers: headers() }))),
    post: async <T = any>(path: string, body: unknown) =>
      toJson<T>(
        await app.fetch(
          new Request(`${BASE}${path}`, { method: 'POST', headers: headers({ 'content-type': 'application/json' }), body: JSON.stringify(body) }),
        ),
      ),
    patch: async <T = any>(path: string, body: unknown) =>
      toJson<T>(
        await app.fetch(
          new Request(`${BASE}${path}`, { method: 'PATCH', headers: headers({ 'content-type': 'application/json' }), body: JSON.stringify(body) }),
        ),
      ),
  };
}

export function graphqlClient(app: App, apiKey?: string) {
  return async <T = any>(query: string, variables: Record<string, unknown> = {}) =>
    toJson<{ data?: T; errors?: Array<{ message: string; extensions?: Record<string, any> }> }>(
      await app.fetch(
        new Request(`${BASE}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
          body: JSON.stringify({ query, variables }),
        }),
      ),
    );
}

/** tRPC over its HTTP wire format (no batching): queries are GET ?input=, mutations POST a JSON body. */
export function trpcClient(app: App, apiKey?: string) {
  const headers = { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) };
  return {
    query: async (path: string, input?: unknown) =>
      toJson<any>(
        await app.fetch(
          new Request(`${BASE}/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`, { headers }),
        ),
      ),
    mutation: async (path: string, input?: unknown) =>
      toJson<any>(await app.fetch(new Request(`${BASE}/trpc/${path}`, { method: 'POST', headers, body: JSON.stringify(input ?? null) }))),
  };
}
