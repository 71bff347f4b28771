/**
 * Failure reasons in words an administrator understands. Ingestion and the crawler record precise,
 * technical reasons ("failed after 5 attempts: network error: connect ECONNREFUSED ..."); those stay
 * in `error` (the API's field, unchanged) and are shown behind a disclosure, while this sentence says
 * what happened and what to do. Unknown reasons get a generic sentence, never a guess.
 */
import type { CrawlFailure } from '../../../db/types';

type Rule = [test: RegExp, summary: string | ((m: RegExpMatchArray) => string)];

const httpStatus = (status: number) =>
  status === 404 || status === 410
    ? 'The page does not exist (the site answered "not found").'
    : status === 401 || status === 403
      ? 'The site refused access to the page (it may need a sign-in).'
      : status === 429
        ? 'The site asked us to slow down; retry later.'
        : status >= 500
          ? 'The website had an error of its own; retry later.'
          : `The site answered with an error (HTTP ${status}).`;

const RULES: Rule[] = [
  [/refused the connection|ECONNREFUSED/i, 'The website could not be reached: nothing answered at that address. Check the URL, or retry once the site is up.'],
  [/does not resolve|ENOTFOUND|dns_not_found/i, 'No website exists under that name. Check the spelling of the URL.'],
  [/DNS lookup failed/i, 'The website\'s name could not be looked up just now; retry later.'],
  [/robots\.txt[^]*disallows|robots_disallowed/i, 'The site\'s robots.txt asks crawlers not to read this page, so it was left out.'],
  [/robots\.txt[^]*could not be fetched/i, 'The website did not answer, so it could not be crawled. Retry once the site is up.'],
  [/TLS error|certificate/i, 'The website\'s security certificate is not valid, so it was not read.'],
  [/timed out|timeout/i, 'The website took too long to answer; retry later.'],
  [/HTTP (\d{3})|status (\d{3})/i, (m) => httpStatus(Number(m[1] ?? m[2]))],
  [/No readable pages/i, 'No readable text was found on the site (pages without text, or all of them excluded).'],
  [/password|encrypted/i, 'The file is password-protected: remove the password and upload it again.'],
  [/not a (?:valid )?(?:PDF|DOCX)|damaged|corrupt/i, 'The file could not be opened: it looks damaged or is not what its name says.'],
  [/too large|exceeds/i, 'The file or page is larger than the limit.'],
  [/no text|no_text|empty/i, 'No text could be read from it (a scan without recognisable text?).'],
  [/unsupported|content type/i, 'That kind of file or page cannot be read.'],
  [/redirect/i, 'The page redirects somewhere it cannot be followed (too many times, or off the site).'],
];

export function explainFailure(error: string | null | undefined): string | null {
  if (!error) return null;
  const tries = /failed after (\d+) attempts/i.exec(error)?.[1];
  for (const [test, summary] of RULES) {
    const m = error.match(test);
    if (m) {
      const text = typeof summary === 'string' ? summary : summary(m);
      return tries ? `${text} (Tried ${tries} times.)` : text;
    }
  }
  return 'Ingestion failed for a reason we do not describe in plain words yet: see the details.';
}

const SKIP_SUMMARY: Record<string, string> = {
  duplicate: 'Skipped: the same page as another address of the site.',
  noindex: 'Skipped: the page asks not to be indexed.',
  empty: 'Skipped: the page has no readable text.',
  robots_disallowed: "Skipped: the site's robots.txt asks crawlers not to read it.",
};

export type CrawlPageState = 'ready' | 'skipped' | 'failed';

/** A page the crawl could not use: whether it was left out on purpose or failed, and why in words. */
export function explainCrawlFailure(f: CrawlFailure): { state: CrawlPageState; summary: string; detail: string } {
  const skipped = SKIP_SUMMARY[f.reason];
  const detail = f.message ? `${f.reason}: ${f.message}` : `${f.reason}${f.status ? ` (HTTP ${f.status})` : ''}`;
  if (skipped) return { state: 'skipped', summary: skipped, detail };
  if (f.status) return { state: 'failed', summary: httpStatus(f.status), detail };
  return { state: 'failed', summary: explainFailure(`${f.reason.replace(/_/g, ' ')} ${f.message ?? ''}`) ?? 'The page could not be read.', detail };
}
