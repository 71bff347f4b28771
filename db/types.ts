/**
 * Kysely's view of the schema: the single source of truth for row types. Migrations under
 * db/migrations/ must keep it true.
 */
import type { ColumnType, Generated, GeneratedAlways, Insertable, Selectable, Updateable } from 'kysely';
import type { Chunk, DocumentIdentity, EvalExpectation, EvalPassage, EvalRunCase, EvalRegression, EvalRunSettings, EvalSummary, StoredEvalSettings, StoredVoiceSettings, UploadReport } from './json-columns';
import type { DocumentWarning } from '../src/ingest/types';
import type { AdminSessionId, AnnotationId, ApiKeyId, BatchId, ChunkId, DocumentId, EvalCaseId, EvalRunId, InvitationId, KbId, MessageId, OrgId, SessionId, UserId } from '../src/ids';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string | T, string | T>;

export type PlanName = 'free' | 'starter' | 'pro';
export type Role = 'owner' | 'admin' | 'editor' | 'viewer';
export type KeyScope = 'full' | 'query';

export type OrgSettings = {
  voice_enabled?: boolean;
  /** Origins allowed to embed the widget; empty or absent means any origin. */
  allowed_origins?: string[];
  /** Workspace -> Settings -> Voice (src/services/voice/voice-settings.ts); absent fields are defaults. */
  voice_settings?: StoredVoiceSettings;
};

export interface OrganizationsTable {
  id: OrgId;
  slug: string;
  name: string;
  plan: PlanName;
  settings: Json<OrgSettings>;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: ApiKeyId;
  org_id: OrgId;
  name: string | null;
  /** First characters of the key, shown in listings and used to find the row; never the secret. */
  prefix: string;
  /** sha256 of the whole key (keys are 190-bit random, so a slow KDF buys nothing). */
  hash: string;
  /** `full`: everything the organisation may do; `query`: search, chat and widget reads only. */
  scope: ColumnType<KeyScope, KeyScope | undefined, KeyScope>;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export interface KnowledgeBasesTable {
  id: KbId;
  org_id: OrgId;
  name: string;
  description: string | null;
  widget_enabled: Generated<boolean>;
  /** Embedding model the KB's vectors were made with; a change re-embeds through a job. */
  embedding_model: string | null;
  embedding_dimensions: number | null;
  /** The voice settings this KB overrides (its organisation's apply to the rest); null: none. */
  voice_settings: ColumnType<StoredVoiceSettings | null, string | null | undefined, string | null>;
  /** Eval runs' top_k and regression webhook (migration 20261202_0800); null: defaults, no webhook. */
  eval_settings: ColumnType<StoredEvalSettings | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type DocumentStatus = 'processing' | 'ready' | 'failed';
export type DocumentSource = 'upload' | 'url';

export type IngestStage = 'parsing' | 'ocr' | 'chunking' | 'embedding';
export type ProgressUnit = 'pages' | 'chunks';

export type CrawlChanges = { added: number; changed: number; removed: number; unchanged: number };

export interface CrawlPagesTable {
  document_id: DocumentId;
  url: string;
  etag: string | null;
  last_modified: string | null;
  content_hash: string;
  links: Json<string[]>;
  /** Migration 0920: the page's title, when it was last fetched and last changed, and how the last crawl found it. */
  title: string | null;
  fetched_at: Timestamp | null;
  changed_at: Timestamp | null;
  last_change: 'added' | 'changed' | 'unchanged' | null;
}

/** A page the last crawl could not read (documents.crawl_failures). */
export type CrawlFailure = { url: string; reason: string; message?: string; status?: number | null };

export interface DocumentsTable {
  id: DocumentId;
  org_id: OrgId;
  kb_id: KbId;
  source: DocumentSource;
  filename: string;
  content_type: string | null;
  size_bytes: number | null;
  status: DocumentStatus;
  error: string | null;
  chunk_count: Generated<number>;
  pages: number | null;
  crawl_options: Json<Record<string, unknown>> | null;
  /** What the chunks are indexed under (migration 0501); null before it. */
  title: Generated<string | null>;
  /** What the document is about (migration 0801, src/ingest/document-identity.ts); null before it. */
  identity: ColumnType<DocumentIdentity | null, string | null | undefined, string | null>;
  /** The language of its text, ISO 639-1 where there is a code (migration 1400, src/text/language.ts); null before it or when too short to tell. */
  language: Generated<string | null>;
  stage: IngestStage | null;
  progress_done: number | null;
  progress_total: number | null;
  progress_unit: ProgressUnit | null;
  ocr_pages: ColumnType<number[], number[] | undefined, number[]>;
  /** Caveats on a ready document (migration 0822): pages OCR was unsure of or could not read. */
  warnings: ColumnType<DocumentWarning[], string | undefined, string>;
  recrawl: 'daily' | 'weekly' | null;
  last_crawled_at: Timestamp | null;
  next_crawl_at: Timestamp | null;
  last_crawl_changes: Json<CrawlChanges> | null;
  crawl_failures: ColumnType<CrawlFailure[] | null, string | null | undefined, string | null>;
  /** sha256 (hex) of an upload's file (migration 20261202_0810): a same-KB re-upload is a duplicate; null for URLs. */
  content_hash: ColumnType<string | null, string | null | undefined, string | null>;
  /** The bulk upload that created it (migration 1060); null for single uploads and URLs. */
  batch_id: ColumnType<BatchId | null, BatchId | null | undefined, BatchId | null>;
  /** Switched off (migration 1300): kept and listed, never retrieved; copied onto its chunks. */
  enabled: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One bulk upload (migration 1060, src/services/documents/upload-batch.ts). */
export interface UploadBatchesTable {
  id: BatchId;
  org_id: OrgId;
  kb_id: KbId;
  /** The per-file report the upload answered (UploadReport[]). */
  files: ColumnType<UploadReport[], string | undefined, string>;
  created_at: Generated<Date>;
}

/** A bulk upload's file stored whole, waiting to become a document (migration 0821). */
export interface UploadStagedFilesTable {
  batch_id: BatchId;
  report_index: number;
  filename: string;
  bytes: Buffer;
}

export interface DocumentFilesTable {
  document_id: DocumentId;
  /** The file in parts of at most 4 MB, in order from 0 (src/services/documents/document-file.ts). */
  part: Generated<number>;
  bytes: Buffer;
}

/** A big document's chunks between ingestion steps (migration 0930, src/services/documents/ingest-steps.ts). */
export interface IngestPendingChunksTable {
  document_id: DocumentId;
  position: number;
  chunk: ColumnType<Chunk, string, string>;
}

export interface ChunksTable {
  id: ChunkId;
  document_id: DocumentId;
  kb_id: KbId;
  position: number;
  text: string;
  heading_path: string[];
  page: number | null;
  url: string | null;
  token_count: number;
  /** Tokens in tsv (lexemes with repeats): the BM25 document length. Generated from tsv. */
  lexeme_count: GeneratedAlways<number>;
  tsv: string;
  embedding: string | null;
  embedding_dimensions: number | null;
  /** Model that made `embedding`; vector search only compares vectors of the KB's current model. */
  embedding_model: string | null;
  /** Migration 0920: kept but out of retrieval; rewritten by an administrator; md5 of the text ingestion produced. */
  disabled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  edited_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  source_hash: string | null;
  /**
   * Migration 1300: stored but not yet in the HNSW index (a big document on the embedded database);
   * retrieval scans these rows exactly until `kbs__index_vectors` moves them in.
   */
  vector_pending: Generated<boolean>;
  /** Its document's `enabled` (migration 1300), copied so retrieval filters chunks alone; a trigger sets it on insert. */
  document_enabled: Generated<boolean>;
  created_at: Timestamp;
}

export type ConversationSource = 'api' | 'widget' | 'voice' | 'sandbox';

export interface ChatSessionsTable {
  id: SessionId;
  org_id: OrgId;
  kb_id: KbId;
  /** Where the conversation was started (migration 0900); a widget conversation that used voice is voice. */
  source: Generated<ConversationSource>;
  /** The address an anonymous (widget, voice) conversation was started from (migration 0820); null otherwise. */
  visitor: Generated<string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ChatMessagesTable {
  id: MessageId;
  session_id: SessionId;
  role: 'user' | 'assistant';
  content: string;
  citations: Json<unknown[]>;
  /** A spoken answer stored as heard: cut by barge-in, stop, an upstream drop or the model's limit. */
  interrupted: Generated<boolean>;
  /** Assistant messages: the answer path refused (migration 0900). */
  refused: Generated<boolean>;
  /** Assistant messages: best score among the cited passages; null when refused or not recorded. */
  support: number | null;
  /** Assistant messages: the visitor's rating, 1 (up) or -1 (down). */
  feedback: number | null;
  feedback_comment: string | null;
  feedback_at: Timestamp | null;
  /** User messages: the question's embedding (Float32, little-endian), filled when it is grouped. */
  embedding: Buffer | null;
  embedding_model: string | null;
  created_at: Timestamp;
}

/** Per organisation, KB and UTC day; no foreign key to the KB, so it outlives a deleted KB (migration 0900). */
export interface UsageDailyTable {
  org_id: OrgId;
  kb_id: string;
  day: ColumnType<unknown, string, string>;
  questions: Generated<number>;
  refused: Generated<number>;
  feedback_up: Generated<number>;
  feedback_down: Generated<number>;
}

export interface AppSecretsTable {
  name: string;
  value: string;
  created_at: Generated<Date>;
}

/** Maintained by triggers on chunks (migration 0004): document frequency of each lexeme in a KB. */
export interface KbLexiconTable {
  kb_id: KbId;
  lexeme: string;
  df: number;
}

/** Maintained by triggers on chunks: a KB's chunk count and total chunk length in tokens. */
export interface KbLexiconTotalsTable {
  kb_id: KbId;
  chunks: number;
  tokens: number;
}

/** A running worker process and its graphile-worker ids (migration 0401). */
export interface WorkerHeartbeatsTable {
  process_id: string;
  worker_ids: string[];
  hostname: string;
  pid: number;
  started_at: ColumnType<Date, Date | undefined, never>;
  beat_at: ColumnType<Date, Date | undefined, Date>;
}

export interface AdminSessionsTable {
  id: AdminSessionId;
  org_id: OrgId;
  /** sha256 of the cookie's secret; the secret itself is never stored. */
  secret_hash: string;
  created_via: 'api_key' | 'link' | 'password' | 'invitation';
  /** The person signed in; null for a session opened with an API key (it acts as an owner). */
  user_id: ColumnType<UserId | null, UserId | null | undefined, UserId | null>;
  ip: ColumnType<string | null, string | null | undefined, string | null>;
  user_agent: ColumnType<string | null, string | null | undefined, string | null>;
  last_seen_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface AdminSignInLinksTable {
  token_hash: string;
  org_id: OrgId;
  /** The person the link signs in as; null: the organisation's first owner. */
  user_id: ColumnType<UserId | null, UserId | null | undefined, UserId | null>;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

/** Metered voice sessions (migration 20261123_0100). */
export interface VoiceSessionsTable {
  id: string;
  org_id: OrgId;
  kb_id: KbId;
  chat_session_id: SessionId | null;
  started_at: Generated<Date>;
  ended_at: Date | null;
  seconds: Generated<number>;
  audio_in_seconds: Generated<number>;
  audio_out_seconds: Generated<number>;
  end_reason: string | null;
  /** Token usage summed over the session's `response.done` events (bigint: read as string by pg). */
  input_tokens: Generated<string | number>;
  output_tokens: Generated<string | number>;
  cached_input_tokens: Generated<string | number>;
  audio_input_tokens: Generated<string | number>;
  audio_output_tokens: Generated<string | number>;
}

/** An upstream that refused an API key (migration 20261126_0840), by sha256 fingerprint of the key. */
export interface VoiceProviderRefusalsTable {
  key_fingerprint: string;
  status: number;
  code: string | null;
  message: string;
  refused_at: Generated<Date>;
}

/** Voice concurrency leases across web processes (migration 20261125_0701). */
export interface VoiceSlotsTable {
  id: string;
  org_id: OrgId;
  acquired_at: Generated<Date>;
  expires_at: Timestamp;
}

export type EvalCaseSource = 'sandbox' | 'conversation' | 'unanswered' | 'manual' | 'import';

/** A KB's test case (migration 20261202_0800, src/services/evals/). */
export interface EvalCasesTable {
  id: EvalCaseId;
  org_id: OrgId;
  kb_id: KbId;
  question: string;
  /** Text or a figure a good answer contains; null: not checked. */
  expected_answer: string | null;
  /** File names (or crawled URLs) of which one should be retrieved; empty: not checked. */
  expected_documents: ColumnType<string[], string | undefined, string>;
  expected_pages: ColumnType<number[], string | undefined, string>;
  /** false: the KB does not hold the answer and a good answer refuses. */
  answerable: Generated<boolean>;
  source: Generated<EvalCaseSource>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export type EvalRunStatus = 'queued' | 'running' | 'completed' | 'failed';
/** `reingest`: a document was ingested again (migration 20261202_0830). */
export type EvalRunTrigger = 'manual' | 'reindex' | 'recrawl' | 'reingest' | 'settings' | 'cli';

export interface EvalRunsTable {
  id: EvalRunId;
  org_id: OrgId;
  kb_id: KbId;
  status: Generated<EvalRunStatus>;
  trigger: EvalRunTrigger;
  progress_done: Generated<number>;
  progress_total: Generated<number>;
  settings: ColumnType<EvalRunSettings, string, string>;
  /** The cases as they were when the run started, in the order it asks them. */
  cases: ColumnType<EvalRunCase[], string, string>;
  summary: ColumnType<EvalSummary | null, string | null | undefined, string | null>;
  regression: ColumnType<EvalRegression | null, string | null | undefined, string | null>;
  error: string | null;
  created_at: Generated<Date>;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface EvalResultsTable {
  run_id: EvalRunId;
  case_id: EvalCaseId;
  /** The case's place in the run, from 0. */
  position: number;
  question: string;
  expected: ColumnType<EvalExpectation, string, string>;
  passages: ColumnType<EvalPassage[], string, string>;
  /** Rank (from 1) of the first passage of an expected document / page; null: none retrieved or none expected. */
  doc_hit_rank: number | null;
  page_hit_rank: number | null;
  answer: string;
  /** Whether the answer contains the expected answer; null: none expected. */
  answer_contains: boolean | null;
  refused: boolean;
  latency_ms: number;
  /** The judge model's grade; null: no judge. */
  judge: 'pass' | 'fail' | 'error' | null;
  judge_note: string | null;
  /** The answer path failed for this case (counted in the summary's errors). */
  error: string | null;
}

/** A person of an organisation (migration 20261203_0900). */
export interface UsersTable {
  id: UserId;
  org_id: OrgId;
  /** Lower-cased; unique across the deployment, so sign-in needs no organisation. */
  email: string;
  name: string | null;
  role: Role;
  /** scrypt string (src/services/people/password-hash.ts); null until an invitation is accepted. */
  password_hash: string | null;
  created_at: Timestamp;
  password_changed_at: Timestamp | null;
  disabled_at: Timestamp | null;
}

export interface InvitationsTable {
  id: InvitationId;
  org_id: OrgId;
  email: string;
  role: Role;
  /** sha256 of the link's token; the token is shown once. */
  token_hash: string;
  invited_by: UserId | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

/** Who did what, append-only (a trigger refuses UPDATE and DELETE). */
export interface AuditLogTable {
  id: GeneratedAlways<string>;
  org_id: OrgId;
  at: Generated<Date>;
  actor_type: string;
  actor_id: string | null;
  actor_label: string;
  ip: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  changes: Json<Record<string, unknown>>;
}

/** A curated question and answer (migration 1300): answers matching questions of its KB first. */
export interface AnnotationsTable {
  id: AnnotationId;
  org_id: OrgId;
  kb_id: KbId;
  question: string;
  answer: string;
  enabled: Generated<boolean>;
  /** The actor label of who gave it (an email, a key prefix). */
  created_by: string;
  /** The question's embedding (Float32, little-endian) by `embedding_model`; re-made when the KB's model differs. */
  embedding: Buffer | null;
  embedding_model: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface Database {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
  knowledge_bases: KnowledgeBasesTable;
  documents: DocumentsTable;
  document_files: DocumentFilesTable;
  crawl_pages: CrawlPagesTable;
  chunks: ChunksTable;
  ingest_pending_chunks: IngestPendingChunksTable;
  upload_batches: UploadBatchesTable;
  upload_staged_files: UploadStagedFilesTable;
  kb_lexicon: KbLexiconTable;
  kb_lexicon_totals: KbLexiconTotalsTable;
  chat_sessions: ChatSessionsTable;
  chat_messages: ChatMessagesTable;
  app_secrets: AppSecretsTable;
  worker_heartbeats: WorkerHeartbeatsTable;
  admin_sessions: AdminSessionsTable;
  admin_sign_in_links: AdminSignInLinksTable;
  voice_sessions: VoiceSessionsTable;
  voice_slots: VoiceSlotsTable;
  voice_provider_refusals: VoiceProviderRefusalsTable;
  usage_daily: UsageDailyTable;
  eval_cases: EvalCasesTable;
  eval_runs: EvalRunsTable;
  eval_results: EvalResultsTable;
  users: UsersTable;
  invitations: InvitationsTable;
  audit_log: AuditLogTable;
  annotations: AnnotationsTable;
}

export type Organization = Selectable<OrganizationsTable>;
export type NewOrganization = Insertable<OrganizationsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type KnowledgeBase = Selectable<KnowledgeBasesTable>;
export type KnowledgeBaseUpdate = Updateable<KnowledgeBasesTable>;
export type DocumentRow = Selectable<DocumentsTable>;
export type ChunkRow = Selectable<ChunksTable>;
export type EvalCaseRow = Selectable<EvalCasesTable>;
export type EvalRunRow = Selectable<EvalRunsTable>;
export type EvalResultRow = Selectable<EvalResultsTable>;
export type UserRow = Selectable<UsersTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
export type AnnotationRow = Selectable<AnnotationsTable>;
