import { deflateSync } from 'node:zlib';

/**
 * A one-page PDF whose content streams are given (each Flate-compressed), with a correct xref
 * table: what a hostile client can build in a few lines.
 */
export function pdfWithContentStreams(contents: Buffer[], { mediaBox = [612, 792] }: { mediaBox?: [number, number] } = {}): Buffer {
  const streams = contents.map((c) => {
    const z = deflateSync(c, { level: 9 });
    return Buffer.concat([Buffer.from(`<< /Length ${z.length} /Filter /FlateDecode >>\nstream\n`), z, Buffer.from('\nendstream')]);
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
