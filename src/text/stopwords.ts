/**
 * Function words per language (stopwords-iso: 58 languages, question words included: 什么, 哪,
 * welche, cuál), which the answerer and the refusal gate do not count as what a question is about.
 * English keeps the project's own list (src/text/tokens.ts STOPWORDS), which its matching was tuned with.
 */
import { createRequire } from 'node:module';
import type { Language } from './language-code';

// A JSON package: required, since the bundle (src/app-bundle) leaves packages to Node's loader,
// whose ESM import of JSON needs an attribute the bundler drops.
const byLanguage = createRequire(import.meta.url)('stopwords-iso') as Record<string, string[]>;
const sets = new Map<Language, ReadonlySet<string>>();

/**
 * How a question is put in a language, beyond its function words: the words that ask for a name,
 * a term or a kind ("Wie lautet der Name …", "¿Cómo se llama …", "叫什么名字"), and the question
 * words written as one word with what they ask about (哪位, 什么时候). A passage that answers
 * rarely repeats them, as the English list (src/text/tokens.ts STOPWORDS) counts "name", "called",
 * "kind" and "type" as function words.
 */
const QUESTION_FRAME: Partial<Record<Language, string>> = {
  de: 'name namen nachname vorname heißt hieß hießen heißen genannt nennt nannte nennen lautet lauten lautete bezeichnet bezeichnung begriff art typ',
  es: 'nombre nombres apellido llama llamaba llamado llamada llamados llaman denomina denominado término tipo clase',
  fr: 'nom noms appelle appelait appelé appelée appelés nomme nommé terme type genre sorte',
  it: 'nome nomi cognome chiama chiamava chiamato chiamata chiamati termine tipo genere',
  pt: 'nome nomes sobrenome chama chamava chamado chamada chamados termo tipo',
  zh: '名字 名称 叫做 称为 哪位 哪一 哪个 哪些 哪种 哪年 什么时候 类型',
};

/** The language's function words, lower-cased; an empty set for a language without a list. */
export function stopwordsFor(language: Language): ReadonlySet<string> {
  let set = sets.get(language);
  if (!set) sets.set(language, (set = new Set((byLanguage[language] ?? []).map((w) => w.toLowerCase()))));
  return set;
}

const questionSets = new Map<Language, ReadonlySet<string>>();

/** The words the answerer and the refusal gate do not count as what a question asks about: function words and QUESTION_FRAME. */
export function unaskedWordsFor(language: Language): ReadonlySet<string> {
  let set = questionSets.get(language);
  if (!set) questionSets.set(language, (set = new Set([...stopwordsFor(language), ...(QUESTION_FRAME[language]?.split(' ') ?? [])])));
  return set;
}
