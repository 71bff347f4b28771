import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractMainContent, extractPlainText } from '../../src/ingest/crawl/extract-main-content';
import { decodeBody, parseHtmlPage } from '../../src/ingest/crawl/html-page';
import { SITE_DIR } from './crawl-fixture-server';

const allText = (sections: { text: string; headingPath: string[] }[]): string =>
  sections.map((s) => `${s.headingPath.join(' > ')}\n${s.text}`).join('\n');

describe('extractMainContent', () => {
  const page = `<!doctype html><html><head><title>Widget guide | ACME</title></head><body>
    <header><a href="/">ACME</a> HEADER-SENTINEL</header>
    <nav><a href="/a">NAV-SENTINEL</a></nav>
    <div id="cookie-banner" class="cc-window">We use COOKIE-SENTINEL cookies. <button>OK</button></div>
    <div class="consent-popup" role="dialog">CONSENT-SENTINEL manage preferences</div>
    <main><article>
      <h1>Widget guide</h1>
      <p>Widgets are small reusable components; this guide covers installing and configuring them in production.</p>
      <h2>Installation</h2><p>Run the installer.   It checks   prerequisites.</p>
      <pre>widget install --prefix /opt/widget
    --verbose</pre>
      <h3>On Linux</h3><p>Use the package.<br>Or build from source.</p>
      <h2>Configuration</h2><p>Settings live in widget.toml.</p>
      <div style="display:none">HIDDEN-SENTINEL</div>
    </article><aside>ASIDE-SENTINEL</aside></main>
    <footer>FOOTER-SENTINEL</footer><script>SCRIPT-SENTINEL</script></body></html>`;

  it('keeps the article and drops nav, header, footer, aside, cookie banners, hidden and script text', () => {
    const { title, sections } = extractMainContent(page, { url: 'https://acme.test/guide' });
    expect(title).toBe('Widget guide | ACME');
    const text = allText(sections);
    expect(text).toContain('Run the installer. It checks prerequisites.');
    for (const sentinel of ['HEADER', 'NAV', 'COOKIE', 'CONSENT', 'HIDDEN', 'ASIDE', 'FOOTER', 'SCRIPT']) {
      expect(text).not.toContain(`${sentinel}-SENTINEL`);
    }
  });

  it('splits at h1-h4 with the heading path, normalising whitespace but keeping <pre> lines and <br>', () => {
    const { sections } = extractMainContent(page);
    expect(sections).toEqual([
      {
        headingPath: ['Widget guide'],
        text: 'Widgets are small reusable components; this guide covers installing and configuring them in production.',
      },
      {
        headingPath: ['Widget guide', 'Installation'],
        text: 'Run the installer. It checks prerequisites.\n\nwidget install --prefix /opt/widget\n    --verbose',
      },
      { headingPath: ['Widget guide', 'Installation', 'On Linux'], text: 'Use the package.\nOr build from source.' },
      { headingPath: ['Widget guide', 'Configuration'], text: 'Settings live in widget.toml.' },
    ]);
  });

  it('falls back to the cleaned body when Readability keeps too little (link-list pages)', () => {
    const rows = Array.from({ length: 40 }, (_, i) => `<tr><td><a href="/p${i}">page${i}</a></td><td>Description of page ${i}</td></tr>`);
    const html = `<html><head><title>Index</title></head><body><nav>NAV-SENTINEL</nav><h1>Manual</h1><p>Pages:</p><table>${rows.join('')}</table><footer>FOOTER-SENTINEL</footer></body></html>`;
    const { sections } = extractMainContent(html);
    const text = allText(sections);
    expect(text).toContain('page0 Description of page 0');
    expect(text).toContain('page39 Description of page 39');
    expect(text).not.toContain('NAV-SENTINEL');
    expect(text).not.toContain('FOOTER-SENTINEL');
  });

  it('reads a real manual page into heading sections', () => {
    const html = readFileSync(join(SITE_DIR, 'pcre2_compile.html'), 'utf8');
    const { title, sections } = extractMainContent(html);
    expect(title).toBe('pcre2_compile specification');
    expect(sections.map((s) => s.headingPath)).toEqual([
      ['pcre2_compile man page'],
      ['pcre2_compile man page', 'SYNOPSIS'],
      ['pcre2_compile man page', 'DESCRIPTION'],
    ]);
    expect(sections[2]!.text).toContain('PCRE2_ANCHORED           Force pattern anchoring');
  });

  it('returns no sections for an empty page', () => {
    expect(extractMainContent('<html><body><nav>only nav</nav></body></html>').sections).toEqual([]);
  });
});

describe('page parsing helpers', () => {
  it('plain text keeps its lines and takes the first line as title', () => {
    const { title, sections } = extractPlainText('README for Widget\n=================\n\n\n\nLine one   \nLine two\n');
    expect(title).toBe('README for Widget');
    expect(sections).toEqual([{ headingPath: [], text: 'README for Widget\n=================\n\nLine one\nLine two' }]);
  });

  it('decodes by header charset, then BOM, then <meta charset>, then UTF-8 / windows-1252', () => {
    const cafe = 'Café';
    expect(decodeBody(Buffer.from(cafe, 'latin1'), 'text/html; charset=iso-8859-1', true)).toBe(cafe);
    expect(decodeBody(Buffer.from(`<meta charset="iso-8859-1">${cafe}`, 'latin1'), 'text/html', true)).toContain(cafe);
    expect(decodeBody(Buffer.from(cafe, 'utf8'), 'text/html', true)).toBe(cafe);
    expect(decodeBody(Buffer.from(cafe, 'latin1'), undefined, true)).toBe(cafe);
    expect(decodeBody(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(cafe)]), 'text/html; charset=latin1', true)).toBe(cafe);
  });

  it('collects followable links and meta robots', () => {
    const html = `<html><head><base href="https://site.test/docs/"><meta name="robots" content="noindex"></head><body>
      <a href="a.html#top">a</a><a href="a.html">again</a><a href="/b">b</a><a rel="nofollow" href="c">c</a>
      <a href="mailto:x@y.z">m</a><a href="javascript:void 0">j</a><a href="https://other.test/">o</a><p>Body text here.</p></body></html>`;
    const parsed = parseHtmlPage(html, 'https://site.test/start', 'groundworkbot');
    expect(parsed.links.map((u) => u.href)).toEqual([
      'https://site.test/docs/a.html',
      'https://site.test/b',
      'https://other.test/',
    ]);
    expect(parsed.noindex).toBe(true);
    expect(parsed.nofollow).toBe(false);
    const none = parseHtmlPage('<meta name="GroundworkBot" content="none"><a href="/x">x</a>', 'https://site.test/', 'groundworkbot');
    expect(none).toMatchObject({ noindex: true, nofollow: true, links: [] });
  });
});
