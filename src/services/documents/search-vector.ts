/**
 * A chunk's full-text vector: its words where ICU puts word boundaries (text/words.ts), stemmed and
 * stopped by PostgreSQL's configuration for its language (text/language.ts). Queries are read the
 * same way (rag/lexical-search.ts), so both sides of a match are the same words.
 */
import { sql } from 'kysely';
import { searchConfig, type Language } from '../../text/language';
import { searchText } from '../../text/words';

export function searchVector(text: string, language: Language | null) {
  return sql<string>`to_tsvector(${searchConfig(language)}::regconfig, ${searchText(text)})`;
}
