/**
 * Word stems per language, for the answerer's term matching and the refusal gate (the index stems
 * with PostgreSQL's Snowball stemmers of the same languages: language.ts `searchConfig`). English
 * keeps the classic Porter stemmer its matching was tuned with; the other Snowball languages use
 * @orama/stemmers' ports; languages without inflection to strip (Chinese, Japanese, Thai, ...) and
 * unknown ones keep their words as they are.
 */
import { stemmer as arabic } from '@orama/stemmers/arabic';
import { stemmer as armenian } from '@orama/stemmers/armenian';
import { stemmer as bulgarian } from '@orama/stemmers/bulgarian';
import { stemmer as danish } from '@orama/stemmers/danish';
import { stemmer as dutch } from '@orama/stemmers/dutch';
import { stemmer as finnish } from '@orama/stemmers/finnish';
import { stemmer as french } from '@orama/stemmers/french';
import { stemmer as german } from '@orama/stemmers/german';
import { stemmer as greek } from '@orama/stemmers/greek';
import { stemmer as hungarian } from '@orama/stemmers/hungarian';
import { stemmer as indonesian } from '@orama/stemmers/indonesian';
import { stemmer as irish } from '@orama/stemmers/irish';
import { stemmer as italian } from '@orama/stemmers/italian';
import { stemmer as lithuanian } from '@orama/stemmers/lithuanian';
import { stemmer as nepali } from '@orama/stemmers/nepali';
import { stemmer as norwegian } from '@orama/stemmers/norwegian';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as romanian } from '@orama/stemmers/romanian';
import { stemmer as russian } from '@orama/stemmers/russian';
import { stemmer as serbian } from '@orama/stemmers/serbian';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import { stemmer as swedish } from '@orama/stemmers/swedish';
import { stemmer as tamil } from '@orama/stemmers/tamil';
import { stemmer as turkish } from '@orama/stemmers/turkish';
import { stemmer as ukrainian } from '@orama/stemmers/ukrainian';
import type { Language } from './language';
import { stem as porter } from './porter';

const SNOWBALL: Record<Language, (word: string) => string> = {
  ar: arabic, hy: armenian, bg: bulgarian, da: danish, nl: dutch, fi: finnish, fr: french, de: german, el: greek,
  hu: hungarian, id: indonesian, ga: irish, it: italian, lt: lithuanian, ne: nepali, no: norwegian, pt: portuguese,
  ro: romanian, ru: russian, sr: serbian, es: spanish, sv: swedish, ta: tamil, tr: turkish, uk: ukrainian,
};

const identity = (word: string) => word;

/** Stems of words seen lately, per language (the same words recur across passages). */
const cache = new Map<string, Map<string, string>>();
const CACHE_LIMIT = 50_000;

/** The stemmer for a language: Porter for English and for text of no known language. */
export function stemmerFor(language: Language | null | undefined): (lowerCased: string) => string {
  if (!language || language === 'en') return porter;
  const snowball = SNOWBALL[language];
  if (!snowball) return identity;
  let seen = cache.get(language);
  if (!seen) cache.set(language, (seen = new Map()));
  const memo = seen;
  return (word) => {
    let out = memo.get(word);
    if (out === undefined) {
      out = snowball(word);
      if (memo.size >= CACHE_LIMIT) memo.clear();
      memo.set(word, out);
    }
    return out;
  };
}
