/**
 * Builds small ZIP archives (stored, no compression) for tests: a DOCX whose XML is broken, an
 * XLSX, a plain archive. Enough of the format for mammoth and our central-directory reader.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';

/** An already deflated member; `declaredSize` is what the archive claims it inflates to. */
export type DeflatedMember = { deflated: Uint8Array; declaredSize: number };

/**
 * A raw deflate stream of `times` MB of `fill`, built without ever holding the inflated bytes: one
 * MB compressed once (non-final blocks), repeated, then an empty final block. 400 MB -> ~400 KB.
 */
export function deflateBomb(times: number, fill = ' '): Uint8Array {
  const piece = deflateRawSync(Buffer.alloc(1024 * 1024, fill), { finishFlush: constants.Z_SYNC_FLUSH });
  return Buffer.concat([...Array<Buffer>(times).fill(piece), Buffer.from([0x03, 0x00])]);
}

export function makeZip(entries: Record<string, string | Uint8Array | DeflatedMember>): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const member = typeof content === 'object' && 'deflated' in content ? content : null;
    const data = member ? Buffer.from(member.deflated) : typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content as Uint8Array);
    const size = member ? member.declaredSize : data.length;
    const method = member ? 8 : 0;
    const fileName = Buffer.from(name, 'utf8');
    const crc = member ? 0 : crc32(data);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(fileName.length, 26);
    locals.push(local, fileName, data);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, fileName);

    offset += local.length + fileName.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(entries).length, 8);
  end.writeUInt16LE(Object.keys(entries).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
</Types>`;

const RELS = `<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
</Relationships>`;

/** A minimal DOCX package around the given word/document.xml body. */
export function makeDocx(documentXml: string | DeflatedMember, extra: Record<string, string | DeflatedMember> = {}): Uint8Array {
  return makeZip({ '[Content_Types].xml': CONTENT_TYPES, '_rels/.rels': RELS, 'word/document.xml': documentXml, ...extra });
}

/** word/document.xml with one paragraph per entry; `style` sets a paragraph style id. */
export function documentXml(paragraphs: Array<{ text: string; style?: string }>): string {
  const body = paragraphs
    .map(({ text, style }) => `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`;
}
