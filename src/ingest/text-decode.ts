/**
 * Turns the bytes of a "text" file into a string without guessing when the bytes say it: BOM
 * first, then strict UTF-8, and only then statistics (chardet). Statistics are poor at telling
 * single-byte Western code pages apart on short inputs, so among those we settle on windows-1252
 * (what browsers do for latin1 too) unless chardet is clearly sure of something else.
 */
import chardet from 'chardet';
import iconv from 'iconv-lite';

export interface DecodedText {
  text: string;
  /** The encoding that was used, as iconv-lite names it. */
  encoding: string;
}

const WESTERN = new Set(['ISO-8859-1', 'ISO-8859-15', 'windows-1252', 'ASCII']);
/** How much more confident chardet must be in another encoding before we prefer it to cp1252. */
const OVERRIDE_MARGIN = 15;

/** The encoding announced by a byte order mark, and the mark's length. */
export function sniffBom(bytes: Uint8Array): { encoding: string; length: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

/**
 * UTF-16 without a BOM shows up as a NUL in every other byte for mostly-Latin text. Only checked
 * on a sample: it is a cheap discriminator, not a proof.
 */
function sniffUtf16WithoutBom(bytes: Uint8Array): string | undefined {
  const n = Math.min(bytes.length, 4096) & ~1;
  if (n < 8) return undefined;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZero++;
    if (bytes[i + 1] === 0) oddZero++;
  }
  const half = n / 2;
  if (oddZero > half * 0.3 && evenZero < half * 0.05) return 'utf-16le';
  if (evenZero > half * 0.3 && oddZero < half * 0.05) return 'utf-16be';
  return undefined;
}

export function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function guessLegacyEncoding(bytes: Uint8Array): string {
  const candidates = chardet.analyse(bytes);
  const western = candidates.find((c) => WESTERN.has(c.name))?.confidence ?? 0;
  const best = candidates.find((c) => iconv.encodingExists(c.name) && !c.name.startsWith('UTF'));
  if (best && !WESTERN.has(best.name) && best.confidence >= western + OVERRIDE_MARGIN) return best.name;
  return 'windows-1252';
}

/**
 * Decodes text bytes. `declared` (an HTTP or <meta> charset) is trusted after a BOM but before
 * statistics, and ignored when iconv-lite does not know it.
 */
export function decodeText(bytes: Uint8Array, declared?: string): DecodedText {
  const bom = sniffBom(bytes);
  if (bom) return { text: decodeWith(bytes.subarray(bom.length), bom.encoding), encoding: bom.encoding };

  const utf16 = sniffUtf16WithoutBom(bytes);
  if (utf16) return { text: decodeWith(bytes, utf16), encoding: utf16 };

  const declaredOk = declared && iconv.encodingExists(declared) ? declared.toLowerCase() : undefined;
  // A page that declares latin1 but is valid UTF-8 is almost always mislabelled UTF-8.
  if (isValidUtf8(bytes) && (!declaredOk || !/^utf-?16/.test(declaredOk))) {
    return { text: decodeWith(bytes, 'utf-8'), encoding: 'utf-8' };
  }
  const encoding = declaredOk ?? guessLegacyEncoding(bytes);
  return { text: decodeWith(bytes, encoding), encoding };
}

function decodeWith(bytes: Uint8Array, encoding: string): string {
  if (encoding === 'utf-8') return new TextDecoder('utf-8').decode(bytes);
  return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), encoding, { stripBOM: true });
}

/**
 * Whether decoded text reads as text: binary data decoded as a code page is full of control
 * characters and replacement characters; real text has almost none.
 */
export function looksLikeText(text: string): boolean {
  if (text.length === 0) return true;
  let bad = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return false;
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c) || c === 0xfffd || (c >= 0x7f && c < 0xa0)) {
      bad++;
    }
  }
  return bad / text.length < 0.01;
}
