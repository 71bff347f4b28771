/**
 * A local fake of the Unstructured partition API that speaks the real wire protocol, so the
 * official `unstructured-client` runs against it unchanged.
 *
 * - POST /general/v0/general, multipart/form-data with a `files` part and the partition fields
 *   (`strategy`, `split_pdf_page`, `starting_page_number`, ...). Answers 200 with a JSON array of
 *   elements `{ type, element_id, text, metadata: { filename, filetype, languages, page_number,
 *   parent_id?, category_depth?, text_as_html? } }`, derived from the uploaded file's own text:
 *   PDF text per page (pdf.js), DOCX raw text (mammoth), anything else decoded as UTF-8.
 *   Markdown-ish blocks map as Unstructured does: `#` lines -> Title with category_depth,
 *   bullets -> ListItem, pipe tables -> Table (with text_as_html), a bare number ending a PDF
 *   page -> PageNumber, short unpunctuated lines -> Title, the rest -> NarrativeText.
 * - Missing `files`: 422 in FastAPI's validation shape. Unreadable or unsupported file: 400
 *   `{ detail }`. Wrong or missing `unstructured-api-key` (when `apiKey` is set): 401.
 * - `failNext({ status, detail }, count)` makes the next requests fail, to check error mapping.
 * Requests are recorded in `requests`.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import mammoth from 'mammoth';
import { extractText, getDocumentProxy } from 'unpdf';

export interface FakeUnstructuredElement {
  type: string;
  element_id: string;
  text: string;
  metadata: {
    filename: string;
    filetype: string;
    languages: string[];
    page_number: number;
    parent_id?: string;
    category_depth?: number;
    text_as_html?: string;
  };
}

export interface FakeUnstructuredRequest {
  headers: IncomingHttpHeaders;
  /** Every non-file form field, as sent. */
  fields: Record<string, string>;
  filename?: string;
  size?: number;
  status: number;
}

export interface FakeUnstructuredFailure {
  status: number;
  /** Goes into `{ detail }`; FastAPI's default text when omitted. */
  detail?: unknown;
}

export interface FakeUnstructuredOptions {
  /** Require this value in the `unstructured-api-key` header. */
  apiKey?: string;
}

export interface FakeUnstructured {
  url: string;
  requests: FakeUnstructuredRequest[];
  failNext(failure: FakeUnstructuredFailure, count?: number): void;
  close(): Promise<void>;
}

const MIME: Record<string, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  md: 'text/markdown',
  txt: 'text/plain',
  html: 'text/html',
};

class UnsupportedFile extends Error {}

function kindOf(bytes: Uint8Array, filename: string): string {
  const head = Buffer.from(bytes.subarray(0, 5)).toString('latin1');
  if (head === '%PDF-') return 'pdf';
  if (head.startsWith('PK')) {
    if (filename.toLowerCase().endsWith('.docx')) return 'docx';
    throw new UnsupportedFile('File type application/zip is not supported.');
  }
  if (bytes.includes(0)) throw new UnsupportedFile('File type application/octet-stream is not supported.');
  const ext = filename.toLowerCase().split('.').pop() ?? '';
  return ext === 'md' || ext === 'markdown' ? 'md' : ext === 'html' || ext === 'htm' ? 'html' : 'txt';
}

/** Text of each page, in order. */
async function pagesOf(bytes: Uint8Array, kind: string): Promise<string[]> {
  if (kind === 'pdf') {
    try {
      const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
      const { text } = await extractText(pdf, { mergePages: false });
      await pdf.destroy();
      return text;
    } catch {
      throw new UnsupportedFile('File does not appear to be a valid PDF.');
    }
  }
  if (kind === 'docx') {
    try {
      return [(await mammoth.extractRawText({ buffer: Buffer.from(bytes) })).value];
    } catch {
      throw new UnsupportedFile('File does not appear to be a valid DOCX.');
    }
  }
  return [new TextDecoder().decode(bytes)];
}

const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function tableHtml(lines: string[]): string {
  const rows = lines
    .filter((l) => !/^\s*\|?\s*:?-{3,}/.test(l))
    .map((l) => l.replace(/^\s*\||\|\s*$/g, '').split('|').map((c) => c.trim()));
  const [head = [], ...body] = rows;
  const tr = (cells: string[], tag: string): string => `<tr>${cells.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('')}</tr>`;
  return `<table><thead>${tr(head, 'th')}</thead><tbody>${body.map((r) => tr(r, 'td')).join('')}</tbody></table>`;
}

type Draft = Pick<FakeUnstructuredElement, 'type' | 'text'> & { depth?: number; html?: string };

function classifyBlock(block: string, isLastOnPdfPage: boolean): Draft[] {
  const lines = block.split('\n').map((l) => l.trim()).filter(Boolean);
  const first = lines[0] ?? '';
  const heading = /^(#{1,6})\s+(.*)$/.exec(first);
  if (heading && lines.length === 1) return [{ type: 'Title', text: heading[2]!, depth: heading[1]!.length - 1 }];
  if (lines.length >= 2 && lines.every((l) => l.includes('|'))) {
    return [{ type: 'Table', text: lines.join(' '), html: tableHtml(lines) }];
  }
  if (lines.every((l) => /^(?:[-*•]|\d+[.)])\s+/.test(l))) {
    return lines.map((l) => ({ type: 'ListItem', text: l.replace(/^(?:[-*•]|\d+[.)])\s+/, '') }));
  }
  const text = lines.join(' ');
  if (isLastOnPdfPage && /^\d{1,4}$/.test(text)) return [{ type: 'PageNumber', text }];
  if (text.length <= 60 && !/[.!?:;,]$/.test(text) && /\p{L}/u.test(text) && text.split(/\s+/).length <= 8) {
    return [{ type: 'Title', text }];
  }
  return [{ type: 'NarrativeText', text }];
}

async function partition(bytes: Uint8Array, filename: string, fields: Record<string, string>): Promise<FakeUnstructuredElement[]> {
  const kind = kindOf(bytes, filename);
  const pages = await pagesOf(bytes, kind);
  const firstPage = Number.parseInt(fields.starting_page_number ?? '1', 10) || 1;
  const elements: FakeUnstructuredElement[] = [];
  let parent: string | undefined;
  pages.forEach((pageText, index) => {
    // pdf.js gives one line per text line; Unstructured would group them into blocks.
    const blocks = kind === 'pdf' ? pageText.split('\n') : pageText.split(/\n\s*\n/);
    const drafts = blocks
      .map((b) => b.trim())
      .filter(Boolean)
      .flatMap((block, i, all) => classifyBlock(block, kind === 'pdf' && i === all.length - 1));
    for (const draft of drafts) {
      const page = firstPage + index;
      const element_id = createHash('sha256').update(`${filename}\u0000${page}\u0000${elements.length}\u0000${draft.text}`).digest('hex').slice(0, 32);
      const element: FakeUnstructuredElement = {
        type: draft.type,
        element_id,
        text: draft.text,
        metadata: { filename, filetype: MIME[kind] ?? 'text/plain', languages: ['eng'], page_number: page },
      };
      if (draft.type === 'Title') {
        element.metadata.category_depth = draft.depth ?? 0;
        parent = element_id;
      } else if (parent) {
        element.metadata.parent_id = parent;
      }
      if (draft.html) element.metadata.text_as_html = draft.html;
      elements.push(element);
    }
  });
  return elements;
}

export async function startFakeUnstructured(options: FakeUnstructuredOptions = {}): Promise<FakeUnstructured> {
  const requests: FakeUnstructuredRequest[] = [];
  const failures: FakeUnstructuredFailure[] = [];

  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown, record?: Omit<FakeUnstructuredRequest, 'status'>): void => {
      if (record) requests.push({ ...record, status });
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url?.split('?')[0] !== '/general/v0/general') return send(404, { detail: 'Not Found' });

    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let form: FormData;
    try {
      form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? '' }, body }).formData();
    } catch {
      return send(422, { detail: [{ type: 'missing', loc: ['body', 'files'], msg: 'Field required', input: null }] }, { headers: req.headers, fields: {} });
    }
    const fields: Record<string, string> = {};
    let file: File | undefined;
    form.forEach((value, key) => {
      if (typeof value === 'string') fields[key] = value;
      else if (key === 'files') file = value as File;
    });
    const record = { headers: req.headers, fields, filename: file?.name, size: file?.size };

    if (options.apiKey !== undefined && req.headers['unstructured-api-key'] !== options.apiKey) {
      return send(401, { detail: 'API key is invalid' }, record);
    }
    const failure = failures.shift();
    if (failure) {
      const detail = failure.detail ?? (failure.status >= 500 ? 'Internal Server Error' : 'Unprocessable Entity');
      return send(failure.status, { detail }, record);
    }
    if (!file) {
      return send(422, { detail: [{ type: 'missing', loc: ['body', 'files'], msg: 'Field required', input: null }] }, record);
    }
    try {
      const elements = await partition(new Uint8Array(await file.arrayBuffer()), file.name, fields);
      send(200, elements, record);
    } catch (err) {
      if (err instanceof UnsupportedFile) return send(400, { detail: err.message }, record);
      send(500, { detail: String(err) }, record);
    }
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext(failure, count = 1) {
      for (let i = 0; i < count; i++) failures.push(failure);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
