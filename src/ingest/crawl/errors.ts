/**
 * Typed crawl errors. Every failure the crawler raises or records is one of these, so callers can
 * decide without string matching:
 *   - CrawlRefusedError    the URL is not allowed to be fetched at all (bad scheme, private address,
 *                          credentials). Raised before any connection is made; the API maps it to 400.
 *   - CrawlPermanentError  retrying will not help (4xx, not HTML, too large, robots.txt disallows...).
 *   - CrawlTransientError  retrying later may help (network errors, 5xx, timeouts, DNS hiccups).
 * CrawlRefusedError extends CrawlPermanentError: a refusal is also permanent.
 */

export type CrawlRefusalCode =
  | 'invalid_url'
  | 'unsupported_scheme'
  | 'credentials_in_url'
  | 'forbidden_address';

export type CrawlPermanentCode =
  | CrawlRefusalCode
  | 'dns_not_found'
  | 'http_status'
  | 'unsupported_content_type'
  | 'too_large'
  | 'too_many_redirects'
  | 'bad_redirect'
  | 'redirect_off_site'
  | 'robots_disallowed'
  | 'tls_error'
  | 'connection_refused'
  | 'no_content';

export type CrawlTransientCode =
  | 'dns_error'
  | 'network_error'
  | 'http_status'
  | 'timeout'
  | 'robots_unreachable'
  | 'crawl_timeout'
  | 'cancelled'
  | 'fetch_failed';

export type CrawlErrorCode = CrawlPermanentCode | CrawlTransientCode;

export interface CrawlErrorDetails {
  url?: string;
  /** HTTP status when the failure was an HTTP response. */
  status?: number;
  cause?: unknown;
}

export abstract class CrawlError extends Error {
  abstract readonly permanent: boolean;
  readonly code: CrawlErrorCode;
  readonly url: string | undefined;
  readonly status: number | undefined;

  constructor(code: CrawlErrorCode, message: string, details: CrawlErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.url = details.url;
    this.status = details.status;
  }
}

export class CrawlPermanentError extends CrawlError {
  override name = 'CrawlPermanentError';
  readonly permanent = true;
  declare readonly code: CrawlPermanentCode;

  constructor(code: CrawlPermanentCode, message: string, details?: CrawlErrorDetails) {
    super(code, message, details);
  }
}

export class CrawlRefusedError extends CrawlPermanentError {
  override name = 'CrawlRefusedError';
  declare readonly code: CrawlRefusalCode;

  constructor(code: CrawlRefusalCode, message: string, details?: CrawlErrorDetails) {
    super(code, message, details);
  }
}

export class CrawlTransientError extends CrawlError {
  override name = 'CrawlTransientError';
  readonly permanent = false;
  declare readonly code: CrawlTransientCode;

  constructor(code: CrawlTransientCode, message: string, details?: CrawlErrorDetails) {
    super(code, message, details);
  }
}

/** Errors for an HTTP status: 408, 425, 429 and 5xx may go away, every other 4xx will not. */
export function httpStatusError(status: number, url: string): CrawlError {
  const message = `${url} answered HTTP ${status}`;
  if (status >= 500 || status === 408 || status === 425 || status === 429) {
    return new CrawlTransientError('http_status', message, { url, status });
  }
  return new CrawlPermanentError('http_status', message, { url, status });
}

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/**
 * Classifies anything thrown while fetching into a CrawlError. Unknown errors are treated as
 * transient: the job layer bounds retries, and a wrongly-permanent error would lose a document.
 */
export function toCrawlError(error: unknown, url?: string): CrawlError {
  if (error instanceof CrawlError) return error;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  const at = url ? ` (${url})` : '';
  if (code === 'ENOTFOUND' || code === 'ENODATA') {
    return new CrawlPermanentError('dns_not_found', `host name does not resolve${at}`, { url, cause: error });
  }
  if (code === 'EAI_AGAIN' || code === 'ESERVFAIL' || code === 'ETIMEOUT' || code === 'EAI_FAIL') {
    return new CrawlTransientError('dns_error', `DNS lookup failed: ${message}${at}`, { url, cause: error });
  }
  if (typeof code === 'string' && TLS_CODES.has(code)) {
    return new CrawlPermanentError('tls_error', `TLS error: ${message}${at}`, { url, cause: error });
  }
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
    return new CrawlTransientError('network_error', `network error: ${message}${at}`, { url, cause: error });
  }
  if (error instanceof Error && (error.name === 'TimeoutError' || error.constructor.name === 'TimeoutError')) {
    return new CrawlTransientError('timeout', `timed out: ${message}${at}`, { url, cause: error });
  }
  return new CrawlTransientError('fetch_failed', `fetch failed: ${message}${at}`, { url, cause: error });
}
