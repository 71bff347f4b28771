/**
 * The shapes of the JSON columns (db/types.ts), defined here so the database layer depends on
 * nothing above it: ingestion and the services import these types from db/, never the reverse.
 */

/** What a document says it is, read from its cover and running headers (src/ingest/document-identity.ts). */
export type DocumentIdentity = {
  subject: string | null;
  kind: string | null;
  period: string | null;
  /** The cover's headline lines besides the subject (largest type, or first headings), kept as context. */
  headline: string[];
  /** Running header/footer texts kept as context (at most a few, short). */
  running: string[];
  /** Where the subject was read from. */
  source: 'caption' | 'cover' | 'running' | 'title' | 'filename' | null;
};

/** One chunk of a document as the chunker cuts it (src/ingest/chunker.ts); ingest_pending_chunks stores it whole. */
export interface Chunk {
  text: string;
  headingPath: string[];
  page?: number;
  url?: string;
  /** 0-based, in document order; stable for the same input and options. */
  position: number;
  /** Estimate from estimateTokens(), not a real tokenizer count. */
  tokenCount: number;
}

/**
 * Voice settings as stored: whatever was valid when written. A value a later release no longer
 * accepts may still be there, so readers go through storedVoiceSettings
 * (src/services/voice/voice-settings.ts), which keeps only the fields that still validate.
 */
export type StoredVoiceSettings = {
  turn_detection?: string;
  eagerness?: string;
  voice?: string;
  instructions_suffix?: string;
};

/** One file of an upload batch, as the upload answered it (src/services/documents/upload-batch.ts). */
export type UploadReport = {
  filename: string;
  /** duplicate: the KB had this file already, document_id is that document; replaced: it was ingested again (replace). */
  status: 'accepted' | 'duplicate' | 'replaced' | 'refused' | 'skipped';
  document_id: string | null;
  error: { code: string; message: string } | null;
};
