/**
 * Public surface of the parsing and chunking layer. Pure: no database, no network except the
 * optional Unstructured server.
 */
export { chunkDocument, chunkSections, DEFAULT_CHUNK_OPTIONS, estimateTokens, splitSentences, type ChunkOptions } from './chunker';
export { detectType, type DetectTypeOptions } from './detect-type';
export { isPermanentIngestError, PermanentIngestError, type PermanentIngestCode } from './errors';
export { parseDocument, type ParseDocumentOptions } from './parse-document';
export { parseHtml, type ParseHtmlOptions } from './parse-html';
export { parseWithUnstructured, type UnstructuredOptions } from './parse-unstructured';
export type { Chunk, DocumentType, ParsedDocument, ParsedSection, UploadType } from './types';
