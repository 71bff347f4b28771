/**
 * A language as this codebase names it: the ISO 639-1 code where one exists ("en", "zh"), else
 * franc's ISO 639-3 code. Its own module, so the stopword lists (stopwords.ts) name it without
 * importing the detector (language.ts) that uses them.
 */
export type Language = string;
