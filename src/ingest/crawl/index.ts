/**
 * URL crawler for POST /api/ingest/url. See crawl-site.ts for what a crawl guarantees and
 * url-guard.ts for the SSRF rules.
 */
export {
  crawlSite,
  CRAWL_DEFAULTS,
  CRAWL_LIMITS,
  type CrawlSiteOptions,
  type CrawlResult,
  type CrawledPage,
  type CrawledSection,
  type SkippedPage,
  type SkipReason,
  type CrawlStopReason,
  type CrawlTestHooks,
} from './crawl-site.js';
export {
  CrawlError,
  CrawlPermanentError,
  CrawlRefusedError,
  CrawlTransientError,
  toCrawlError,
  type CrawlErrorCode,
  type CrawlPermanentCode,
  type CrawlRefusalCode,
  type CrawlTransientCode,
} from './errors.js';
export { assertPublicUrl, parseCrawlUrl, type UrlGuardOptions, type AddressPolicy, type ResolveAll } from './url-guard.js';
export { guardedPost } from './guarded-post.js';
export { forbiddenAddressReason } from './address-policy.js';
export {
  extractMainContent,
  extractMainContentFromDocument,
  extractPlainText,
  type ContentSection,
  type MainContent,
} from './extract-main-content.js';
