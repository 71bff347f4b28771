/** Character error rate of OCR against a reference text: edit distance over the reference's length. */

/** Case and whitespace do not count: OCR and a PDF's text layer break lines and columns differently. */
export function normaliseForCer(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Levenshtein distance, two rows of the DP table (pages are a few thousand characters). */
export function levenshtein(a: string, b: string): number {
  if (a.length < b.length) [a, b] = [b, a];
  let prev = Uint32Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ca === b.charCodeAt(j - 1) ? 0 : 1));
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

export function characterErrorRate(ocr: string, reference: string): { cer: number; edits: number; refChars: number } {
  const o = normaliseForCer(ocr);
  const r = normaliseForCer(reference);
  const edits = levenshtein(o, r);
  return { cer: r.length === 0 ? 0 : edits / r.length, edits, refChars: r.length };
}

/**
 * Share of the reference's words that the OCR text holds (as a multiset), whatever their order:
 * tells misread characters from a reading order that differs from the text layer's (boxes, columns).
 */
export function wordRecall(ocr: string, reference: string): number {
  const have = new Map<string, number>();
  for (const w of normaliseForCer(ocr).split(' ')) have.set(w, (have.get(w) ?? 0) + 1);
  const ref = normaliseForCer(reference).split(' ').filter(Boolean);
  let found = 0;
  for (const w of ref) {
    const n = have.get(w) ?? 0;
    if (n > 0) (found++, have.set(w, n - 1));
  }
  return ref.length === 0 ? 1 : found / ref.length;
}
