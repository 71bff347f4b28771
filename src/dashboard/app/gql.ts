/**
 * The dashboard's only way to the server: GraphQL over fetch (and XMLHttpRequest for uploads, whose
 * progress fetch cannot report). Documents are typed by gql.tada against graphql-env.d.ts, which
 * `npm run schema:print` writes from the schema, so `tsc` fails when a query and the schema disagree.
 * The session travels in the HttpOnly cookie; every request carries the CSRF header the server
 * requires with that cookie.
 */
import { initGraphQLTada, type ResultOf, type TadaDocumentNode, type VariablesOf } from 'gql.tada';
import { print } from '@0no-co/graphql.web';
import type { introspection } from './graphql-env';
import { readSse } from '../../../widget/src/sse';

export const graphql = initGraphQLTada<{ introspection: introspection; disableMasking: true; scalars: { DateTime: string; ID: string; File: File } }>();
export type { ResultOf, VariablesOf };

export class GqlError extends Error {
  constructor(
    message: string,
    readonly code: string,
    /** The input field the server refused (invalid_input), so the form can say it next to that field. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Called when the server says the session has ended (expired, revoked): the app shows sign-in. */
export let onSignedOut: () => void = () => {};
export const setOnSignedOut = (fn: () => void) => void (onSignedOut = fn);

const HEADERS = { 'content-type': 'application/json', 'x-groundwork-csrf': '1' };

type Body = {
  data?: unknown;
  errors?: { message: string; extensions?: { app_code?: string; field?: string } }[];
  /** A response from outside GraphQL's execution (the body-size limit, a proxy): REST's error shape. */
  error?: { code?: string; message?: string } | string;
};

function unwrap<R>(body: Body, status = 200): R {
  if (body.error !== undefined || (status >= 400 && !body.errors)) {
    const e = typeof body.error === 'string' ? { message: body.error } : (body.error ?? {});
    throw new GqlError(e.message ?? `The server answered HTTP ${status}`, e.code ?? 'internal_error');
  }
  const err = body.errors?.[0];
  if (err) {
    const code = err.extensions?.app_code ?? 'internal_error';
    if (code === 'unauthorized') onSignedOut();
    throw new GqlError(err.message, code, err.extensions?.field);
  }
  return body.data as R;
}

export async function gql<R, V>(doc: TadaDocumentNode<R, V>, variables?: V): Promise<R> {
  let res: Response;
  try {
    res = await fetch('/graphql', { method: 'POST', headers: HEADERS, credentials: 'same-origin', body: JSON.stringify({ query: print(doc), variables }) });
  } catch {
    throw new GqlError('The server cannot be reached', 'network');
  }
  const body = (await res.json().catch(() => ({ errors: [{ message: `HTTP ${res.status}` }] }))) as Body;
  return unwrap<R>(body, res.status);
}

/**
 * A subscription over SSE, as yoga serves it to a POST with `accept: text/event-stream`: each `next`
 * event is one result, `complete` ends the stream. Yields each result's data; an error ends the stream
 * with a GqlError (the same codes as gql()).
 */
export async function* gqlStream<R, V>(doc: TadaDocumentNode<R, V>, variables: V, signal?: AbortSignal): AsyncGenerator<R> {
  let res: Response;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      headers: { ...HEADERS, accept: 'text/event-stream' },
      credentials: 'same-origin',
      body: JSON.stringify({ query: print(doc), variables }),
      ...(signal ? { signal } : {}),
    });
  } catch {
    throw new GqlError('The server cannot be reached', 'network');
  }
  if (!res.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
    unwrap((await res.json().catch(() => ({ errors: [{ message: `HTTP ${res.status}` }] }))) as Body);
    throw new GqlError(`HTTP ${res.status}`, 'internal_error');
  }
  for await (const e of readSse(res.body)) {
    if (e.event === 'complete') return;
    if (e.event === 'next') yield unwrap<R>(JSON.parse(e.data) as Body);
  }
}

/** A GraphQL multipart upload (the spec yoga implements), reporting progress from 0 to 1. */
export function gqlUpload<R, V extends Record<string, unknown>>(
  doc: TadaDocumentNode<R, V>,
  variables: V,
  fileVar: keyof V & string,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<R> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append('operations', JSON.stringify({ query: print(doc), variables: { ...variables, [fileVar]: null } }));
    form.append('map', JSON.stringify({ 0: [`variables.${fileVar}`] }));
    form.append('0', file, file.name);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/graphql');
    xhr.setRequestHeader('x-groundwork-csrf', '1');
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onerror = () => reject(new GqlError('The upload was interrupted', 'network'));
    xhr.onload = () => {
      try {
        // The 413 for a file over the limit is answered before GraphQL runs, in REST's shape.
        resolve(unwrap<R>(JSON.parse(xhr.responseText) as Body, xhr.status));
      } catch (err) {
        reject(err instanceof GqlError ? err : new GqlError(`Upload failed (HTTP ${xhr.status})`, 'internal_error'));
      }
    };
    xhr.send(form);
  });
}
