import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { PermanentIngestError } from '../../src/ingest/errors';
import { parseDocument } from '../../src/ingest/parse-document';
import { elementsToDocument, parseWithUnstructured } from '../../src/ingest/parse-unstructured';
import { startFakeUnstructured, type FakeUnstructured } from '../fakes/unstructured-server';
import { readDoc } from './corpus';

const API_KEY = 'test-unstructured-key';
let server: FakeUnstructured;
let options: { serverURL: string; apiKey: string };

beforeAll(async () => {
  server = await startFakeUnstructured({ apiKey: API_KEY });
  options = { serverURL: server.url, apiKey: API_KEY };
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  // unstructured-client logs every failed request to the console; keep test output readable.
  for (const method of ['error', 'warn', 'info'] as const) vi.spyOn(console, method).mockImplementation(() => undefined);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const markdown = new TextEncoder().encode(
  ['# Handbook', 'Welcome to the company.', '## Leave', 'You get 25 days.', '- Ask early\n- Use the HR tool', '| Type | Days |\n|---|---|\n| Annual | 25 |\n| Sick | 10 |'].join(
    '\n\n',
  ),
);

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

describe('parseWithUnstructured', () => {
  it('sends the file through the official client and maps elements to sections', async () => {
    const doc = await parseWithUnstructured(markdown, 'handbook.md', options);
    expect(doc).toEqual({
      title: 'Handbook',
      pages: 1,
      sections: [
        { text: 'Welcome to the company.', headingPath: ['Handbook'], page: 1 },
        { text: 'You get 25 days.', headingPath: ['Handbook', 'Leave'], page: 1 },
        { text: '- Ask early', headingPath: ['Handbook', 'Leave'], page: 1 },
        { text: '- Use the HR tool', headingPath: ['Handbook', 'Leave'], page: 1 },
        { text: 'Type | Days\nType: Annual | Days: 25\nType: Sick | Days: 10', headingPath: ['Handbook', 'Leave'], page: 1 },
      ],
    });
    const [request] = server.requests;
    expect(request).toMatchObject({ filename: 'handbook.md', status: 200, fields: { strategy: 'auto', split_pdf_page: 'false' } });
    expect(request?.headers['unstructured-api-key']).toBe(API_KEY);
  });

  it('keeps PDF page numbers and drops page furniture', async () => {
    const doc = await parseDocument(readDoc('layout-parser-paper-with-table.pdf'), {
      filename: 'paper.pdf',
      type: 'pdf',
      unstructured: options,
    });
    expect(doc.pages).toBe(1);
    expect(doc.sections.every((s) => s.page === 1)).toBe(true);
    expect(doc.sections.map((s) => s.text).join('\n')).toContain('Current layout detection models');

    const multi = await parseWithUnstructured(readDoc('tracemonkey.pdf'), 'tracemonkey.pdf', options);
    expect(multi.pages).toBe(14);
    expect(new Set(multi.sections.map((s) => s.page)).size).toBe(14);
    // The fake reports a bare page number ending a page as PageNumber; it must not become text.
    expect(multi.sections.some((s) => /^\d+$/.test(s.text))).toBe(false);
  });

  it('nests titles by category_depth', () => {
    const doc = elementsToDocument([
      { type: 'Title', text: 'Guide', metadata: { category_depth: 0, page_number: 1 } },
      { type: 'Title', text: 'Setup', metadata: { category_depth: 1, page_number: 1 } },
      { type: 'NarrativeText', text: 'Install it.', metadata: { page_number: 2 } },
      { type: 'Header', text: 'ACME CONFIDENTIAL', metadata: { page_number: 2 } },
      { type: 'Title', text: 'Usage', metadata: { category_depth: 1, page_number: 3 } },
      { type: 'ListItem', text: '• Run it.', metadata: { page_number: 3 } },
    ]);
    expect(doc).toEqual({
      title: 'Guide',
      pages: 3,
      sections: [
        { text: 'Install it.', headingPath: ['Guide', 'Setup'], page: 2 },
        { text: '• Run it.', headingPath: ['Guide', 'Usage'], page: 3 },
      ],
    });
  });

  it('maps a 422 to a permanent failure carrying the server reason', async () => {
    server.failNext({ status: 422, detail: [{ type: 'enum', loc: ['body', 'strategy'], msg: "Input should be 'fast' or 'hi_res'" }] });
    const err = await rejection(parseWithUnstructured(markdown, 'a.md', options));
    expect(err).toBeInstanceOf(PermanentIngestError);
    expect((err as PermanentIngestError).code).toBe('conversion_rejected');
    expect((err as Error).message).toBe("The document conversion service rejected the file: Input should be 'fast' or 'hi_res'");
  });

  it('maps a file the server cannot read (400) to a permanent failure', async () => {
    const err = await rejection(parseWithUnstructured(new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]), 'archive.zip', options));
    expect(err).toBeInstanceOf(PermanentIngestError);
    expect((err as Error).message).toMatch(/File type application\/zip is not supported/);
  });

  it('maps 5xx, 429 and a bad API key to transient errors, without client-side retries', async () => {
    server.failNext({ status: 500 });
    const e500 = await rejection(parseWithUnstructured(markdown, 'a.md', options));
    expect(e500).not.toBeInstanceOf(PermanentIngestError);
    expect((e500 as Error).message).toBe('Unstructured API answered HTTP 500');
    expect(server.requests).toHaveLength(1);

    server.failNext({ status: 429, detail: 'Too many requests' });
    expect(await rejection(parseWithUnstructured(markdown, 'a.md', options))).not.toBeInstanceOf(PermanentIngestError);

    const e401 = await rejection(parseWithUnstructured(markdown, 'a.md', { ...options, apiKey: 'wrong' }));
    expect(e401).not.toBeInstanceOf(PermanentIngestError);
    expect((e401 as Error).message).toBe('Unstructured API answered HTTP 401');
  });

  it('reports an unreachable server as transient', async () => {
    const gone = await startFakeUnstructured();
    await gone.close();
    const err = await rejection(parseWithUnstructured(markdown, 'a.md', { serverURL: gone.url }));
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(PermanentIngestError);
  });

  it('is not used for crawled HTML', async () => {
    const html = new TextEncoder().encode('<html><body><p>Local parsing only.</p></body></html>');
    const doc = await parseDocument(html, { filename: 'page.html', type: 'html', url: 'https://example.com/', unstructured: options });
    expect(doc.sections[0]?.text).toBe('Local parsing only.');
    expect(server.requests).toHaveLength(0);
  });
});
