/**
 * Function words per language (stopwords-iso: 58 languages, question words included: 什么, 哪,
 * welche, cuál), which the answerer and the refusal gate do not count as what a question is about.
 * English keeps the project's own list (ai/offline/text.ts STOPWORDS), which its matching was tuned with.
 */
import { createRequire } from 'node:module';
import type { Language } from './language-code';

// A JSON package: required, since the bundle (src/app-bundle) leaves packages to Node's loader,
// whose ESM import of JSON needs an attribute the bundler drops.
const byLanguage = createRequire(import.meta.url)('stopwords-iso') as Record<string, string[]>;
const sets = new Map<Language, ReadonlySet<string>>();

/** The language's function words, lower-cased; an empty set for a language without a list. */
export function stopwordsFor(language: Language): ReadonlySet<string> {
  let set = sets.get(language);
  if (!set) sets.set(language, (set = new Set((byLanguage[language] ?? []).map((w) => w.toLowerCase()))));
  return set;
}
