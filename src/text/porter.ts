/**
 * The classic Porter (1980) stemmer for English, used by the offline answerer
 * and condenser so that "invented" in a question matches "invention" in a
 * passage. Deterministic and dependency-free; cached because the same words
 * recur constantly across passages.
 */

const cache = new Map<string, string>();
const CACHE_LIMIT = 50_000;

function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false;
  if (c === 'y') return i === 0 ? true : !isConsonant(w, i - 1);
  return true;
}

/** m() in Porter's paper: the number of VC sequences in w[0..end). */
function measure(w: string, end: number): number {
  let n = 0;
  let i = 0;
  while (i < end && isConsonant(w, i)) i++;
  while (i < end) {
    while (i < end && !isConsonant(w, i)) i++;
    if (i >= end) break;
    while (i < end && isConsonant(w, i)) i++;
    n++;
  }
  return n;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (!isConsonant(w, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

/** *o: stem ends cvc where the last c is not w, x or y. */
function endsCvc(w: string, end: number): boolean {
  if (end < 3) return false;
  if (!isConsonant(w, end - 1) || isConsonant(w, end - 2) || !isConsonant(w, end - 3)) return false;
  const c = w[end - 1];
  return c !== 'w' && c !== 'x' && c !== 'y';
}

/** Replace suffix when the remaining stem has measure > minM. */
function replaceIf(w: string, suffix: string, repl: string, minM: number): string | null {
  if (!w.endsWith(suffix)) return null;
  const stemLen = w.length - suffix.length;
  if (measure(w, stemLen) > minM) return w.slice(0, stemLen) + repl;
  return w;
}

const STEP2: Array<[string, string]> = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'],
  ['bli', 'ble'], ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'],
  ['ization', 'ize'], ['ation', 'ate'], ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'],
  ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'], ['iviti', 'ive'], ['biliti', 'ble'],
  ['logi', 'log'],
];
const STEP3: Array<[string, string]> = [
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', ''],
];
const STEP4 = [
  'al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou',
  'ism', 'ate', 'iti', 'ous', 'ive', 'ize',
];

function porter(word: string): string {
  let w = word;
  if (w.length <= 2) return w;

  // Step 1a
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('ss')) {
    /* keep */
  } else if (w.endsWith('s')) w = w.slice(0, -1);

  // Step 1b
  let step1bExtra = false;
  if (w.endsWith('eed')) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1);
  } else if (w.endsWith('ed') && hasVowel(w, w.length - 2)) {
    w = w.slice(0, -2);
    step1bExtra = true;
  } else if (w.endsWith('ing') && hasVowel(w, w.length - 3)) {
    w = w.slice(0, -3);
    step1bExtra = true;
  }
  if (step1bExtra) {
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
    else if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w, w.length) === 1 && endsCvc(w, w.length)) w += 'e';
  }

  // Step 1c, as revised in Porter2: y -> i after a consonant that is not the first letter,
  // so "fly" and "flies" meet at "fli" while "say" stays "say".
  if (w.endsWith('y') && w.length > 2 && isConsonant(w, w.length - 2)) w = w.slice(0, -1) + 'i';

  // Step 2
  for (const [suf, rep] of STEP2) {
    if (w.endsWith(suf)) {
      w = replaceIf(w, suf, rep, 0) ?? w;
      break;
    }
  }

  // Step 3
  for (const [suf, rep] of STEP3) {
    if (w.endsWith(suf)) {
      w = replaceIf(w, suf, rep, 0) ?? w;
      break;
    }
  }

  // Step 4
  for (const suf of STEP4) {
    if (!w.endsWith(suf)) continue;
    const stemLen = w.length - suf.length;
    if (measure(w, stemLen) > 1) {
      if (suf === 'ion') {
        const c = w[stemLen - 1];
        if (c === 's' || c === 't') w = w.slice(0, stemLen);
      } else {
        w = w.slice(0, stemLen);
      }
    }
    break;
  }

  // Step 5a
  if (w.endsWith('e')) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  // Step 5b
  if (measure(w, w.length) > 1 && endsDoubleConsonant(w) && w.endsWith('l')) w = w.slice(0, -1);

  return w;
}

/** Stem a lower-case word. Non-alphabetic tokens (numbers, ids) are returned unchanged. */
export function stem(word: string): string {
  if (!/^[a-z]+$/.test(word)) return word;
  const hit = cache.get(word);
  if (hit !== undefined) return hit;
  const out = porter(word);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(word, out);
  return out;
}
