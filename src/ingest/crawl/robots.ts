/**
 * robots.txt per origin (scheme + host + port, as RFC 9309 scopes it), fetched once per crawl
 * through the SSRF-safe client and parsed with robots-parser.
 *
 * Status handling follows RFC 9309 section 2.3.1:
 *   2xx            -> parse the rules (first 512 KiB)
 *   4xx / refused  -> "unavailable": everything allowed
 *   5xx / network  -> "unreachable": everything disallowed (the crawl of that origin is refused)
 */
import robotsParser from 'robots-parser';
import { type CrawlError, toCrawlError } from './errors.js';
import type { SafeHttpClient } from './safe-http-client.js';

export type RobotsStatus = 'parsed' | 'unavailable' | 'unreachable';

export interface RobotsRules {
  readonly status: RobotsStatus;
  /** Why the file was unavailable/unreachable, for messages. */
  readonly detail?: string;
  /** The fetch error behind an unavailable/unreachable status, if it was one. */
  readonly error?: CrawlError;
  isAllowed(url: URL): boolean;
  readonly sitemaps: string[];
  /** Crawl-delay for our user agent, in seconds, when the file sets one. */
  readonly crawlDelaySecs: number | undefined;
}

const MAX_ROBOTS_BYTES = 512 * 1024;

export class RobotsCache {
  private readonly byOrigin = new Map<string, Promise<RobotsRules>>();

  constructor(
    private readonly client: SafeHttpClient,
    private readonly userAgent: string,
    private readonly timeoutMs: number,
  ) {}

  rulesFor(url: URL): Promise<RobotsRules> {
    let rules = this.byOrigin.get(url.origin);
    if (!rules) {
      rules = this.load(url.origin);
      this.byOrigin.set(url.origin, rules);
    }
    return rules;
  }

  async isAllowed(url: URL): Promise<boolean> {
    return (await this.rulesFor(url)).isAllowed(url);
  }

  private async load(origin: string): Promise<RobotsRules> {
    const robotsUrl = `${origin}/robots.txt`;
    try {
      const response = await this.client.fetch(robotsUrl, {
        timeoutMs: this.timeoutMs,
        maxBytes: MAX_ROBOTS_BYTES,
        maxRedirects: 5,
        accept: 'text/plain,*/*;q=0.1',
        canFollowRedirect: null,
      });
      if (response.status >= 200 && response.status < 300) {
        return this.parse(robotsUrl, response.body.toString('utf8'));
      }
      if (response.status >= 400 && response.status < 500) return fixed('unavailable', `HTTP ${response.status}`);
      return fixed('unreachable', `HTTP ${response.status}`);
    } catch (caught) {
      const error = toCrawlError(caught, robotsUrl);
      // A refusal or an oversized file is the site's problem, not a reason to stop: treat as absent.
      return fixed(error.permanent ? 'unavailable' : 'unreachable', error.message, error);
    }
  }

  private parse(robotsUrl: string, text: string): RobotsRules {
    const robots = robotsParser(robotsUrl, text);
    const agent = this.userAgent;
    const delay = robots.getCrawlDelay(agent);
    return {
      status: 'parsed',
      // robots-parser answers undefined for URLs of another origin; rulesFor never asks those.
      isAllowed: (url) => robots.isAllowed(url.href, agent) !== false,
      sitemaps: robots.getSitemaps(),
      crawlDelaySecs: typeof delay === 'number' && Number.isFinite(delay) && delay > 0 ? delay : undefined,
    };
  }
}

function fixed(status: Exclude<RobotsStatus, 'parsed'>, detail: string, error?: CrawlError): RobotsRules {
  const allowed = status === 'unavailable';
  return { status, detail, error, isAllowed: () => allowed, sitemaps: [], crawlDelaySecs: undefined };
}
