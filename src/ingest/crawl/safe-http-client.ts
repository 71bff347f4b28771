/**
 * The only code in the crawler that opens sockets. Guarantees, for every request:
 *  - each hop (the first request and every redirect) passes parseCrawlUrl, and every socket resolves
 *    its host through createGuardedLookup, so the validated address is the connected address;
 *  - redirects are followed here (never by a library), at most `maxRedirects`, each hop may be vetoed
 *    by `canFollowRedirect` (same-site rule, robots.txt);
 *  - one deadline covers connect, headers, redirects and the whole body (a slow drip cannot stall);
 *  - at most `maxBytes` of decoded body are read (Content-Length checked first, then streamed bytes,
 *    counted after decompression so a gzip bomb is cut off too);
 *  - an abort of the crawl-level signal destroys the socket at once.
 * Implements Crawlee's BaseHttpClient so HttpCrawler fetches pages through it.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { pipeline, Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import type {
  BaseHttpClient,
  HttpRequest,
  HttpResponse,
  ResponseTypes,
  StreamingHttpResponse,
} from '@crawlee/cheerio';
import { CrawlError, CrawlPermanentError, CrawlTransientError, toCrawlError } from './errors.js';
import { createGuardedLookup, parseCrawlUrl, type UrlGuardOptions } from './url-guard.js';

/** Returns a refusal for the hop from -> to (reported as the error), or null to follow it. */
export type RedirectGuard = (
  from: URL,
  to: URL,
  original: URL,
) => Promise<CrawlPermanentError | null> | CrawlPermanentError | null;

export interface SafeHttpClientOptions extends UrlGuardOptions {
  userAgent: string;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
  /** Crawl-level cancellation: aborting it destroys every in-flight request. */
  signal?: AbortSignal;
  /** Veto for redirect hops of pages fetched through Crawlee (stream/sendRequest). */
  canFollowRedirect?: RedirectGuard;
  maxSockets?: number;
}

export interface FetchOptions {
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  accept?: string;
  canFollowRedirect?: RedirectGuard | null;
  /** If-None-Match / If-Modified-Since for a re-crawl (first hop only). */
  conditional?: { etag?: string; lastModified?: string };
}

export interface FetchedResource {
  url: string;
  redirectUrls: string[];
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

interface OpenedResponse {
  url: URL;
  redirectUrls: URL[];
  status: number;
  statusMessage: string | undefined;
  headers: IncomingHttpHeaders;
  ip: string | undefined;
  body: Readable;
  progress: { transferred: number; total: number | undefined };
}

const DEFAULT_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.1';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** One deadline + cancellation for one logical request (all hops and the body). */
class RequestControl {
  private current: { destroy(error?: Error): unknown } | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort: () => void;
  failure: Error | undefined;

  constructor(
    url: string,
    timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => {
      this.fail(new CrawlTransientError('timeout', `no complete response within ${timeoutMs} ms`, { url }));
    }, timeoutMs);
    this.onAbort = () => {
      this.fail(new CrawlTransientError('cancelled', 'request cancelled', { url, cause: signal?.reason }));
    };
    if (signal?.aborted) this.onAbort();
    else signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.current?.destroy(error);
    this.dispose();
  }

  attach(target: { destroy(error?: Error): unknown }): void {
    this.current = target;
    if (this.failure) target.destroy(this.failure);
  }

  throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function decoderFor(encoding: string | undefined): Transform | null {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}

export class SafeHttpClient implements BaseHttpClient {
  private readonly lookup;
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(private readonly options: SafeHttpClientOptions) {
    this.lookup = createGuardedLookup(options);
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 8, lookup: this.lookup };
    this.httpAgent = new http.Agent(agentOptions as http.AgentOptions);
    this.httpsAgent = new https.Agent(agentOptions as https.AgentOptions);
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /** Fetches a whole (small) resource: robots.txt, sitemaps. Any status is returned, not thrown. */
  async fetch(input: string | URL, options: FetchOptions = {}): Promise<FetchedResource> {
    const opened = await this.open(input, options);
    const body = await readAll(opened.body);
    return {
      url: opened.url.href,
      redirectUrls: opened.redirectUrls.map((u) => u.href),
      status: opened.status,
      headers: opened.headers,
      body,
    };
  }

  /** BaseHttpClient: used by Crawlee's HttpCrawler for every page. */
  async stream(request: HttpRequest): Promise<StreamingHttpResponse> {
    const h = (request.headers ?? {}) as Record<string, string | undefined>;
    const conditional = { etag: h['if-none-match'], lastModified: h['if-modified-since'] };
    const opened = await this.open(request.url, { conditional });
    const { body } = opened;
    const result = {
      stream: body,
      request,
      redirectUrls: opened.redirectUrls,
      url: opened.url.href,
      ip: opened.ip,
      statusCode: opened.status,
      statusMessage: opened.statusMessage,
      headers: opened.headers,
      trailers: {},
      complete: false,
      get downloadProgress() {
        const { transferred, total } = opened.progress;
        return { transferred, total, percent: total ? transferred / total : 0 };
      },
      get uploadProgress() {
        return { transferred: 0, total: 0, percent: 1 };
      },
    };
    body.once('end', () => {
      result.complete = true;
    });
    return result;
  }

  /** BaseHttpClient: not used by the crawler itself; provided for completeness. */
  async sendRequest<T extends keyof ResponseTypes = 'text'>(request: HttpRequest<T>): Promise<HttpResponse<T>> {
    const streamed = await this.stream(request as HttpRequest);
    const buffer = await readAll(streamed.stream);
    const type = request.responseType ?? 'text';
    const body = type === 'buffer' ? buffer : type === 'json' ? JSON.parse(buffer.toString('utf8')) : buffer.toString('utf8');
    const { stream: _stream, ...rest } = streamed;
    return { ...rest, complete: true, body } as unknown as HttpResponse<T>;
  }

  private async open(input: string | URL, fetchOptions: FetchOptions): Promise<OpenedResponse> {
    const timeoutMs = fetchOptions.timeoutMs ?? this.options.timeoutMs;
    const maxBytes = fetchOptions.maxBytes ?? this.options.maxBytes;
    const maxRedirects = fetchOptions.maxRedirects ?? this.options.maxRedirects ?? 10;
    const guard = fetchOptions.canFollowRedirect === undefined ? this.options.canFollowRedirect : fetchOptions.canFollowRedirect;
    const original = parseCrawlUrl(input, this.options);
    const control = new RequestControl(original.href, timeoutMs, this.options.signal);

    try {
      let current = original;
      const redirectUrls: URL[] = [];
      for (;;) {
        control.throwIfFailed();
        const conditional = redirectUrls.length === 0 ? fetchOptions.conditional : undefined;
        const response = await this.requestOnce(current, fetchOptions.accept ?? DEFAULT_ACCEPT, control, conditional);
        const location = headerValue(response.headers.location);
        if (REDIRECT_STATUSES.has(response.statusCode ?? 0) && location) {
          response.resume();
          if (redirectUrls.length >= maxRedirects) {
            throw new CrawlPermanentError('too_many_redirects', `more than ${maxRedirects} redirects`, { url: original.href });
          }
          let next: URL;
          try {
            next = new URL(location, current);
          } catch {
            throw new CrawlPermanentError('bad_redirect', `invalid redirect location: ${location.slice(0, 200)}`, {
              url: current.href,
            });
          }
          // SSRF rules first, so a redirect to a private address is reported as such.
          next = parseCrawlUrl(next, this.options);
          const veto = guard ? await guard(current, next, original) : null;
          if (veto) throw veto;
          redirectUrls.push(next);
          current = next;
          continue;
        }
        return this.wrapBody(current, redirectUrls, response, maxBytes, control);
      }
    } catch (error) {
      control.dispose();
      throw toCrawlError(control.failure ?? error, original.href);
    }
  }

  private requestOnce(url: URL, accept: string, control: RequestControl, conditional?: FetchOptions['conditional']): Promise<IncomingMessage> {
    const secure = url.protocol === 'https:';
    return new Promise((resolve, reject) => {
      const request = (secure ? https : http).request({
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        agent: secure ? this.httpsAgent : this.httpAgent,
        lookup: this.lookup as never,
        headers: {
          'user-agent': this.options.userAgent,
          accept,
          'accept-encoding': 'gzip, deflate, br',
          ...(conditional?.etag ? { 'if-none-match': conditional.etag } : {}),
          ...(conditional?.lastModified ? { 'if-modified-since': conditional.lastModified } : {}),
        },
      });
      request.once('response', resolve);
      request.once('error', (error) => reject(control.failure ?? error));
      control.attach(request);
      request.end();
    });
  }

  private wrapBody(
    url: URL,
    redirectUrls: URL[],
    response: IncomingMessage,
    maxBytes: number,
    control: RequestControl,
  ): OpenedResponse {
    const declared = Number(headerValue(response.headers['content-length']));
    const encoding = headerValue(response.headers['content-encoding']);
    // A compressed body larger than the limit cannot decode to less than the limit in practice.
    if (Number.isFinite(declared) && declared > maxBytes) {
      response.destroy();
      throw new CrawlPermanentError('too_large', `response is ${declared} bytes, limit is ${maxBytes}`, { url: url.href });
    }
    const progress = { transferred: 0, total: Number.isFinite(declared) ? declared : undefined };
    const limiter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        progress.transferred += chunk.length;
        if (progress.transferred > maxBytes) {
          callback(new CrawlPermanentError('too_large', `response exceeds the limit of ${maxBytes} bytes`, { url: url.href }));
          return;
        }
        callback(null, chunk);
      },
    });
    const decoder = decoderFor(encoding);
    const stages = decoder ? [response, decoder, limiter] : [response, limiter];
    pipeline(stages as unknown as [Readable, Transform], (error) => {
      if (error && !limiter.destroyed) limiter.destroy(toCrawlError(control.failure ?? error, url.href));
    });
    control.attach(limiter);
    limiter.once('close', () => control.dispose());

    const headers = { ...response.headers };
    if (decoder) {
      delete headers['content-encoding'];
      delete headers['content-length'];
    }
    return {
      url,
      redirectUrls,
      status: response.statusCode ?? 0,
      statusMessage: response.statusMessage,
      headers,
      ip: response.socket?.remoteAddress,
      body: limiter,
      progress,
    };
  }
}

/** Reads a stream to one Buffer; stream errors are rethrown as CrawlErrors. */
export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } catch (error) {
    throw error instanceof CrawlError ? error : toCrawlError(error);
  }
  return Buffer.concat(chunks);
}
