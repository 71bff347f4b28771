import { deflateSync } from 'node:zlib';

/** A content stream already encoded, with the /Filter value that decodes it. */
export type EncodedStream = { filter: string; data: Buffer };

/**
 * A one-page PDF whose content streams are given (each Flate-compressed), with a correct xref
 * table: what a hostile client can build in a few lines.
 */
export function pdfWithContentStreams(contents: Array<Buffer | EncodedStream>, { mediaBox = [612, 792] }: { mediaBox?: [number, number] } = {}): Buffer {
  const streams = contents.map((c) => {
    const { filter, data } = Buffer.isBuffer(c) ? { filter: '/FlateDecode', data: deflateSync(c, { level: 9 }) } : c;
    return Buffer.concat([Buffer.from(`<< /Length ${data.length} /Filter ${filter} >>\nstream\n`), data, Buffer.from('\nendstream')]);
  });
  const first = 5;
  const refs = streams.map((_, i) => `${first + i} 0 R`).join(' ');
  const objects = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${mediaBox[0]} ${mediaBox[1]}] /Contents [${refs}] /Resources << /Font << /F1 4 0 R >> >> >>`),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
    ...streams,
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(length);
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), o, Buffer.from('\nendobj\n')]);
    parts.push(obj);
    length += obj.length;
  });
  let xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) xref += `${String(o).padStart(10, '0')} 00000 n \n`;
  xref += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  return Buffer.concat([...parts, Buffer.from(xref)]);
}

/** A content stream that shows `text`, followed by `padMb` MB of spaces (which compress ~1000:1). */
export function textContent(text: string, padMb = 0): Buffer {
  const show = Buffer.from(`BT /F1 12 Tf 72 720 Td (${text}) Tj ET\n`);
  return padMb ? Buffer.concat([show, Buffer.alloc(padMb * 1024 * 1024, 0x20)]) : show;
}

/** A content stream that paints a 1x1 grey inline image over a `width` x `height` page: no text, one image. */
export function imageOnlyContent(width: number, height: number): Buffer {
  return Buffer.concat([Buffer.from(`q ${width} 0 0 ${height} 0 0 cm BI /W 1 /H 1 /CS /G /BPC 8 ID `), Buffer.from([0x80]), Buffer.from(' EI Q\n')]);
}

/**
 * LZW codes as PDF writes them (9-12 bits, EarlyChange 1, 257 at the end): every code after the
 * first adds a table entry, and the width grows one code early.
 */
export function lzwCodes(codes: number[]): Buffer {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  let width = 9;
  let nextCode = 258;
  const write = (code: number) => {
    acc = (acc << width) | code;
    bits += width;
    while (bits >= 8) {
      bits -= 8;
      out.push((acc >>> bits) & 0xff);
    }
    acc &= (1 << bits) - 1;
  };
  codes.forEach((code, i) => {
    write(code);
    if (i === 0) return;
    nextCode++;
    const n = nextCode + 1;
    if ((n & (n - 1)) === 0) width = Math.min(Math.log2(n) + 1, 12);
  });
  write(257);
  if (bits > 0) out.push((acc << (8 - bits)) & 0xff);
  return Buffer.from(out);
}

/**
 * `mb` MB of spaces in LZW, then `content`: each code after the first names the previous string
 * plus one space, up to the table's last entry (3,839 spaces), which is then repeated: ~2,500:1.
 */
export function lzwBomb(mb: number, content: Buffer): Buffer {
  const codes = [0x20];
  let size = 1;
  for (let code = 258; code < 4096; code++) (codes.push(code), (size += code - 256));
  while (size < mb * 1024 * 1024) (codes.push(4095), (size += 3839));
  return lzwCodes([...codes, ...content]);
}

/** RunLengthDecode: runs of up to 128 copies of a byte, two bytes each. */
export function runLength(data: Buffer): Buffer {
  const out: number[] = [];
  for (let i = 0; i < data.length; ) {
    let run = 1;
    while (run < 128 && data[i + run] === data[i]) run++;
    if (run > 1) out.push(257 - run, data[i]!);
    else out.push(0, data[i]!);
    i += run;
  }
  out.push(128);
  return Buffer.from(out);
}

/** ASCII85Encode, as PostScript-era tools wrap binary streams in text. */
export function ascii85(data: Buffer): Buffer {
  let out = '';
  for (let i = 0; i < data.length; i += 4) {
    const group = Buffer.alloc(4);
    data.copy(group, 0, i, i + 4);
    const n = Math.min(4, data.length - i);
    let value = group.readUInt32BE(0);
    if (value === 0 && n === 4) {
      out += 'z';
      continue;
    }
    const chars: string[] = [];
    for (let k = 0; k < 5; k++) (chars.unshift(String.fromCharCode(33 + (value % 85))), (value = Math.floor(value / 85)));
    out += chars.slice(0, n + 1).join('');
  }
  return Buffer.from(`${out}~>`);
}

/** A line of text on a page: baseline `y` from the bottom, font size `size` (Helvetica). */
export type PdfLine = { text: string; y: number; size?: number };

/**
 * A PDF of several pages of text lines, with an optional /Info dictionary (e.g. a Title): for
 * covers, running headers and metadata titles. Text must not contain parentheses or backslashes.
 */
export function pdfWithPages(pages: PdfLine[][], info: { Title?: string } = {}): Buffer {
  const fontId = 3;
  const infoId = 4;
  const pageIds = pages.map((_, i) => 5 + 2 * i);
  const objects = new Map<number, Buffer>();
  objects.set(1, Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'));
  objects.set(2, Buffer.from(`<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`));
  objects.set(fontId, Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'));
  objects.set(infoId, Buffer.from(`<< ${info.Title !== undefined ? `/Title (${info.Title})` : ''} >>`));
  pages.forEach((lines, i) => {
    const content = Buffer.from(lines.map((l) => `BT /F1 ${l.size ?? 11} Tf 72 ${l.y} Td (${l.text}) Tj ET\n`).join(''));
    objects.set(pageIds[i]!, Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${pageIds[i]! + 1} 0 R /Resources << /Font << /F1 ${fontId} 0 R >> >> >>`));
    objects.set(pageIds[i]! + 1, Buffer.concat([Buffer.from(`<< /Length ${content.length} >>\nstream\n`), content, Buffer.from('\nendstream')]));
  });
  const count = 4 + 2 * pages.length;
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  for (let id = 1; id <= count; id++) {
    offsets.push(length);
    const obj = Buffer.concat([Buffer.from(`${id} 0 obj\n`), objects.get(id)!, Buffer.from('\nendobj\n')]);
    parts.push(obj);
    length += obj.length;
  }
  let xref = `xref\n0 ${count + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) xref += `${String(o).padStart(10, '0')} 00000 n \n`;
  xref += `trailer\n<< /Size ${count + 1} /Root 1 0 R /Info ${infoId} 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  return Buffer.concat([...parts, Buffer.from(xref)]);
}
