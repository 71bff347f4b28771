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
  /**
   * How sure the reading of the subject is: `high` for a line the document names itself by (a
   * caption, a cover line its body repeats, a metadata title in words), `low` for a guess (a running
   * header, a cover line never repeated, the file name). Absent on identities read before it existed.
   */
  confidence?: 'high' | 'low';
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
  /** queued: stored with the request, its document is created in the background (read the batch for it).
   * duplicate: the KB had this file already, document_id is that document; replaced: it was ingested again (replace). */
  status: 'accepted' | 'queued' | 'duplicate' | 'replaced' | 'refused' | 'skipped';
  document_id: string | null;
  error: { code: string; message: string } | null;
};

/** knowledge_bases.eval_settings (migration 20261202_0800, src/services/evals/eval-settings.ts); absent fields are defaults. */
export type StoredEvalSettings = {
  /** Passages each eval question retrieves (default 5). */
  top_k?: number;
  /** Where a regression is POSTed, signed with `webhook_secret` (HMAC-SHA256). */
  webhook_url?: string | null;
  webhook_secret?: string | null;
};

/** What an eval run ran with (eval_runs.settings), so runs with different settings are told apart. */
export type EvalRunSettings = {
  top_k: number;
  answer_model: string;
  embedding_model: string | null;
  judge: boolean;
};

/** Summary figures of a completed run (eval_runs.summary, src/services/evals/score-evals.ts); a figure without cases to measure is null. */
export type EvalSummary = {
  cases: number;
  hit_at_1: number | null;
  hit_at_k: number | null;
  page_hit_at_1: number | null;
  page_hit_at_k: number | null;
  answer_contains: number | null;
  refusal_precision: number | null;
  refusal_recall: number | null;
  judge_pass: number | null;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  errors: number;
};

/** A completed run's drop against the KB's previous completed run (eval_runs.regression). */
export type EvalRegression = {
  flagged: boolean;
  previous_run_id: string;
  threshold: number;
  /** Figure -> [previous, current], for the figures that dropped by more than the threshold. */
  drops: Record<string, [number, number]>;
  webhook: 'none' | 'queued' | 'delivered' | 'failed';
};

/** One retrieved passage of an eval result, in the order retrieval returned it (rank from 1). */
export type EvalPassage = { rank: number; document_id: string; document_name: string; page: number | null; url: string | null; score: number };

/** The case an eval result was measured against, as it was when the run asked it. */
export type EvalExpectation = { answer: string | null; documents: string[]; pages: number[]; answerable: boolean };

/** A case as a run asks it (eval_runs.cases): its id (a fresh one for cases read from a file) and expectations. */
export type EvalRunCase = { id: string; question: string } & EvalExpectation;
