/**
 * One POST to an address a customer gave (a webhook), under the crawler's SSRF rules: the URL is
 * checked before (assertPublicUrl, so a refusal says why), and the socket connects only to an
 * address the guarded lookup validated, so a name that resolves to a public address at the check
 * and to a private one at the connect (DNS rebinding) reaches nothing. Redirects are not followed.
 */
import http from 'node:http';
import https from 'node:https';
import { assertPublicUrl, createGuardedLookup, type UrlGuardOptions } from './url-guard.js';

export interface GuardedPostOptions extends UrlGuardOptions {
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** The answer's status; the body is drained and dropped. Network failures and refusals throw. */
export async function guardedPost(input: string, options: GuardedPostOptions): Promise<number> {
  const url = await assertPublicUrl(input, options);
  const lookup = options.allowPrivate ? undefined : createGuardedLookup(options);
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise<number>((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) },
        agent: false,
        signal: AbortSignal.timeout(options.timeoutMs),
        ...(lookup ? { lookup: lookup as never } : {}),
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', reject);
      },
    );
    req.once('error', reject);
    req.end(options.body);
  });
}
