/**
 * The PDF stream filters besides Flate (zlib, inflated-size.ts), decoded the way pdf.js decodes
 * them but within a byte budget, for counting what a stream expands to before pdf.js holds it.
 * LZW turns 12 bits into up to ~4 KB (a 25 MB upload into ~60 GB) and RunLength 2 bytes into
 * 128; ASCIIHex and ASCII85 only wrap another filter's bytes, but have to be undone to reach it.
 */

export type Decoded = { size: number; bytes?: Uint8Array } | 'too_large';

/** Collects a decoder's output: counted always, kept only when another filter reads it next. */
class Output {
  size = 0;
  private chunk: Uint8Array;
  private at = 0;
  private readonly chunks: Uint8Array[] = [];

  constructor(
    private readonly budget: number,
    private readonly keep: boolean,
  ) {
    this.chunk = new Uint8Array(keep ? 64 * 1024 : 0);
  }

  /** False once past the budget: the decoder stops. */
  push(byte: number, times = 1): boolean {
    this.size += times;
    if (this.size > this.budget) return false;
    if (this.keep) for (let i = 0; i < times; i++) this.put(byte);
    return true;
  }

  pushAll(bytes: Uint8Array, from: number, length: number): boolean {
    this.size += length;
    if (this.size > this.budget) return false;
    if (this.keep) for (let i = 0; i < length; i++) this.put(bytes[from + i]!);
    return true;
  }

  private put(byte: number) {
    if (this.at === this.chunk.length) {
      this.chunks.push(this.chunk);
      this.chunk = new Uint8Array(this.chunk.length);
      this.at = 0;
    }
    this.chunk[this.at++] = byte;
  }

  result(): Decoded {
    if (this.size > this.budget) return 'too_large';
    if (!this.keep) return { size: this.size };
    return { size: this.size, bytes: Buffer.concat([...this.chunks, this.chunk.subarray(0, this.at)]) };
  }
}

/** LZWDecode, as pdf.js's LZWStream: 9-12-bit codes, 256 clears, 257 ends, a frozen table past 4096 entries. */
export function decodeLzw(data: Uint8Array, budget: number, keep = false, earlyChange = 1): Decoded {
  const out = new Output(budget, keep);
  const prefix = new Uint16Array(4096);
  const last = new Uint8Array(4096);
  const lengths = new Uint16Array(4096);
  for (let i = 0; i < 256; i++) (last[i] = i), (lengths[i] = 1);
  const sequence = new Uint8Array(4097);
  let sequenceLength = 0;
  let nextCode = 258;
  let width = 9;
  let prevCode = 0;
  let bitBuffer = 0;
  let bits = 0;
  let pos = 0;
  for (;;) {
    while (bits < width) {
      if (pos >= data.length) return out.result();
      bitBuffer = ((bitBuffer << 8) | data[pos++]!) & 0xffffff;
      bits += 8;
    }
    bits -= width;
    const code = (bitBuffer >>> bits) & ((1 << width) - 1);
    const hadPrevious = sequenceLength > 0;
    if (code < 256) {
      sequence[0] = code;
      sequenceLength = 1;
    } else if (code === 256) {
      width = 9;
      nextCode = 258;
      sequenceLength = 0;
      continue;
    } else if (code === 257) {
      return out.result();
    } else if (code < nextCode) {
      sequenceLength = lengths[code]!;
      for (let j = sequenceLength - 1, q = code; j >= 0; j--) (sequence[j] = last[q]!), (q = prefix[q]!);
    } else {
      sequence[sequenceLength++] = sequence[0]!;
    }
    if (hadPrevious) {
      if (nextCode < 4096) {
        prefix[nextCode] = prevCode;
        lengths[nextCode] = lengths[prevCode]! + 1;
        last[nextCode] = sequence[0]!;
      }
      nextCode++;
      const n = nextCode + earlyChange;
      if ((n & (n - 1)) === 0) width = Math.min(Math.log2(n) + 1, 12);
    }
    prevCode = code;
    if (!out.pushAll(sequence, 0, sequenceLength)) return 'too_large';
  }
}

/** RunLengthDecode: a length byte n copies n + 1 bytes (n < 128) or repeats the next byte 257 - n times. */
export function decodeRunLength(data: Uint8Array, budget: number, keep = false): Decoded {
  const out = new Output(budget, keep);
  for (let pos = 0; pos < data.length; ) {
    const n = data[pos++]!;
    if (n === 128) break;
    if (n < 128) {
      const length = Math.min(n + 1, data.length - pos);
      if (!out.pushAll(data, pos, length)) return 'too_large';
      pos += length;
    } else {
      if (pos >= data.length) break;
      if (!out.push(data[pos++]!, 257 - n)) return 'too_large';
    }
  }
  return out.result();
}

/** ASCIIHexDecode: pairs of hex digits up to '>', whitespace ignored, a lone last digit padded with 0. */
export function decodeAsciiHex(data: Uint8Array, budget: number, keep = false): Decoded {
  const out = new Output(budget, keep);
  let high = -1;
  for (const c of data) {
    if (c === 0x3e) break;
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66 ? (c | 0x20) - 0x57 : -1;
    if (digit < 0) continue;
    if (high < 0) high = digit;
    else if (!out.push((high << 4) | digit)) return 'too_large';
    else high = -1;
  }
  if (high >= 0 && !out.push(high << 4)) return 'too_large';
  return out.result();
}

/** ASCII85Decode: five characters '!'-'u' make four bytes, 'z' four zeros, '~>' ends; anything else (whitespace) is skipped. */
export function decodeAscii85(data: Uint8Array, budget: number, keep = false): Decoded {
  const out = new Output(budget, keep);
  const group: number[] = [];
  const flush = (count: number) => {
    while (group.length < 5) group.push(84);
    let value = 0;
    for (const g of group) value = value * 85 + g;
    for (let i = 0; i < count; i++) if (!out.push((value >>> (24 - 8 * i)) & 0xff)) return false;
    group.length = 0;
    return true;
  };
  for (const c of data) {
    if (c === 0x7e) break;
    if (c === 0x7a && group.length === 0) {
      if (!out.push(0, 4)) return 'too_large';
    } else if (c >= 0x21 && c <= 0x75) {
      group.push(c - 0x21);
      if (group.length === 5 && !flush(4)) return 'too_large';
    }
  }
  if (group.length > 1 && !flush(group.length - 1)) return 'too_large';
  return out.result();
}
