/**
 * The only reader of process.env. Parsed once at boot with zod and frozen; an invalid environment
 * fails fast with every problem listed, so a misconfigured deploy never half-starts.
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/**
 * Twice the cores, between 4 and 10: PostgreSQL's own sizing rule (about two active connections per
 * core), with this machine's cores standing in for the database server's. More backends than that
 * only contend for the cores: on 2 cores, 20 concurrent searches used 12% less CPU each, and had a
 * p95 of 48 ms instead of 59, with 4 connections than with 10.
 */
function defaultPoolSize(): number {
  return Math.min(10, Math.max(4, 2 * availableParallelism()));
}

const ZEnv = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Embedded default database lives here (ignored when DATABASE_URL is set). */
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.string().url().optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(defaultPoolSize()),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Run the ingestion worker inside the web process (default on the embedded database). */
  WORKER_INLINE: bool.optional(),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  MAX_UPLOAD_BYTES: z.coerce.number().int().min(1).default(25 * 1024 * 1024),
  MAX_JSON_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** Bulk upload: files per request, bytes per request, and what a ZIP may inflate to. */
  MAX_UPLOAD_FILES: z.coerce.number().int().min(1).max(10_000).default(100),
  MAX_UPLOAD_REQUEST_BYTES: z.coerce.number().int().min(1).default(100 * 1024 * 1024),
  ZIP_MAX_ENTRIES: z.coerce.number().int().min(1).default(1000),
  ZIP_MAX_INFLATED_BYTES: z.coerce.number().int().min(1).default(200 * 1024 * 1024),
  /** How long a bulk upload request creates documents before it answers (the files left are reported, not created). */
  BULK_UPLOAD_BUDGET_MS: z.coerce.number().int().min(100).max(60_000).default(3_000),
  /** Scanned pages read by OCR per document at most (0 turns OCR off). */
  OCR_MAX_PAGES: z.coerce.number().int().min(0).max(10_000).default(50),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.string().url().optional(),
  OPENAI_MODEL: z.string().min(1).default('gpt-4o-mini'),
  OPENAI_EMBEDDING_MODEL: z.string().min(1).default('text-embedding-3-small'),
  /** Needed only for embedding models whose size Groundwork does not know (e.g. on Ollama). */
  OPENAI_EMBEDDING_DIMENSIONS: z.coerce.number().int().min(8).max(4096).optional(),
  SSE_HEARTBEAT_MS: z.coerce.number().int().min(100).default(5000),
  UNSTRUCTURED_API_URL: z.string().url().optional(),
  UNSTRUCTURED_API_KEY: z.string().min(1).optional(),
  CRAWL_ALLOW_PRIVATE: bool.default(false),
  /** Signs widget session tokens; when unset a random key is generated once and kept in the database. */
  WIDGET_TOKEN_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Public widget endpoints: requests per minute per client IP, and chat messages per minute per widget session. */
  WIDGET_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  WIDGET_SESSION_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  /** Refused keys and widget tokens an address, and an API key prefix, may present per window before 429 (src/http/failed-key-throttle.ts). */
  FAILED_KEYS_PER_ADDRESS: z.coerce.number().int().min(1).default(20),
  FAILED_KEYS_PER_PREFIX: z.coerce.number().int().min(1).default(10),
  FAILED_KEYS_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600),
  /** Anonymous widget sessions kept per KB and per visitor address; the least recently used unrated one goes first. */
  WIDGET_ANONYMOUS_SESSIONS_PER_KB: z.coerce.number().int().min(1).default(5000),
  WIDGET_ANONYMOUS_SESSIONS_PER_VISITOR: z.coerce.number().int().min(1).default(50),
  /** Feedback ratings per widget session, and per organisation per UTC day. */
  FEEDBACK_PER_SESSION: z.coerce.number().int().min(1).default(50),
  FEEDBACK_PER_ORG_PER_DAY: z.coerce.number().int().min(1).default(5000),
  /** Behind one reverse proxy (Heroku router, nginx): take the client IP from the last X-Forwarded-For entry. */
  TRUST_PROXY: bool.default(false),
  /** The owner account the first start creates (it signs in by the printed one-time link, then sets a password). */
  OWNER_EMAIL: z.string().trim().toLowerCase().regex(/^[^@\s]+@[^@\s]+$/, 'must be an email address').default('owner@localhost'),
  /** smtp(s)://user:pass@host:port: invitations are also emailed; without it the link is only shown and printed. */
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  /** The sender of those emails. */
  SMTP_FROM: z.string().default('Groundwork <groundwork@localhost>'),
  /** Bearer token for GET /metrics (Prometheus); /metrics is off (404) without one. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Worker processes serve their own /metrics on this port (web processes use their HTTP port). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Serve GraphiQL at /graphql; defaults to on only when NODE_ENV=development is set explicitly. */
  GRAPHIQL: bool.optional(),
  /** Time a client has to send its request headers, and its whole request (slowloris bounds). */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).default(15_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(120_000),
  /** On SIGTERM, how long in-flight requests and streams may take to finish before they are cut (Heroku kills at 30 s). */
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).default(20_000),
  /** Voice: the Realtime model and endpoint (any server speaking OpenAI's GA Realtime protocol), and its key if not OPENAI_API_KEY. */
  OPENAI_REALTIME_API_KEY: z.string().min(1).optional(),
  OPENAI_REALTIME_MODEL: z.string().min(1).default('gpt-realtime'),
  OPENAI_REALTIME_URL: z.string().url().regex(/^wss?:\/\//, 'must be a ws:// or wss:// URL').default('wss://api.openai.com/v1/realtime'),
  /** Voice limits per session: length, silence from the browser, frames per second, bytes queued per direction. */
  VOICE_MAX_SESSION_SECONDS: z.coerce.number().int().min(10).max(4 * 3600).default(600),
  VOICE_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(2).max(3600).default(20),
  VOICE_MAX_FRAMES_PER_SECOND: z.coerce.number().int().min(10).max(1000).default(100),
  VOICE_MAX_BUFFERED_BYTES: z.coerce.number().int().min(16 * 1024).max(64 * 1024 * 1024).default(512 * 1024),
});

export type Config = Readonly<{
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  database: { kind: 'embedded'; dataDir: string } | { kind: 'postgres'; url: string };
  databasePoolSize: number;
  logLevel: z.infer<typeof ZEnv>['LOG_LEVEL'];
  worker: { inline: boolean; concurrency: number };
  rateLimitPerMinute: number;
  maxUploadBytes: number;
  maxJsonBytes: number;
  bulkUpload: { maxFiles: number; maxRequestBytes: number; zipMaxEntries: number; zipMaxInflatedBytes: number; budgetMs: number };
  ocrMaxPages: number;
  openai: { apiKey: string; baseURL?: string; model: string; embeddingModel: string; embeddingDimensions?: number } | null;
  sseHeartbeatMs: number;
  unstructured: { serverURL: string; apiKey?: string } | null;
  crawlAllowPrivate: boolean;
  graphiql: boolean;
  widget: {
    tokenSecret: string | null;
    ipRateLimitPerMinute: number;
    sessionRateLimitPerMinute: number;
    anonymousSessionsPerKb: number;
    anonymousSessionsPerVisitor: number;
    feedbackPerSession: number;
    feedbackPerOrgPerDay: number;
  };
  failedKeys: { perAddress: number; perPrefix: number; windowSeconds: number };
  people: { ownerEmail: string; smtpUrl: string | null; smtpFrom: string };
  trustProxy: boolean;
  http: { headersTimeoutMs: number; requestTimeoutMs: number; shutdownDrainMs: number };
  /** The voice gateway's upstream; null (no OPENAI_API_KEY) makes voice unavailable. */
  realtime: { apiKey: string; model: string; url: string } | null;
  voice: { maxSessionSeconds: number; idleTimeoutSeconds: number; maxFramesPerSecond: number; maxBufferedBytes: number };
  metrics: { token: string | null; workerPort: number | null };
}>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings are "unset": Procfile/.env tooling often exports VAR= for optional values.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ZEnv.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
  }
  const e = parsed.data;
  const database: Config['database'] = e.DATABASE_URL
    ? { kind: 'postgres', url: e.DATABASE_URL }
    : { kind: 'embedded', dataDir: path.resolve(e.DATA_DIR) };
  return Object.freeze({
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    database,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    logLevel: e.LOG_LEVEL,
    worker: { inline: e.WORKER_INLINE ?? database.kind === 'embedded', concurrency: e.WORKER_CONCURRENCY },
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    maxUploadBytes: e.MAX_UPLOAD_BYTES,
    maxJsonBytes: e.MAX_JSON_BYTES,
    bulkUpload: {
      maxFiles: e.MAX_UPLOAD_FILES,
      maxRequestBytes: e.MAX_UPLOAD_REQUEST_BYTES,
      zipMaxEntries: e.ZIP_MAX_ENTRIES,
      zipMaxInflatedBytes: e.ZIP_MAX_INFLATED_BYTES,
      budgetMs: e.BULK_UPLOAD_BUDGET_MS,
    },
    ocrMaxPages: e.OCR_MAX_PAGES,
    openai: e.OPENAI_API_KEY
      ? {
          apiKey: e.OPENAI_API_KEY,
          baseURL: e.OPENAI_BASE_URL,
          model: e.OPENAI_MODEL,
          embeddingModel: e.OPENAI_EMBEDDING_MODEL,
          embeddingDimensions: e.OPENAI_EMBEDDING_DIMENSIONS,
        }
      : null,
    sseHeartbeatMs: e.SSE_HEARTBEAT_MS,
    unstructured: e.UNSTRUCTURED_API_URL ? { serverURL: e.UNSTRUCTURED_API_URL, apiKey: e.UNSTRUCTURED_API_KEY } : null,
    crawlAllowPrivate: e.CRAWL_ALLOW_PRIVATE,
    // Off unless asked for: NODE_ENV defaults to development, and a forgotten NODE_ENV must not publish GraphiQL.
    graphiql: e.GRAPHIQL ?? cleaned.NODE_ENV === 'development',
    widget: {
      tokenSecret: e.WIDGET_TOKEN_SECRET ?? null,
      ipRateLimitPerMinute: e.WIDGET_RATE_LIMIT_PER_MINUTE,
      sessionRateLimitPerMinute: e.WIDGET_SESSION_RATE_LIMIT_PER_MINUTE,
      anonymousSessionsPerKb: e.WIDGET_ANONYMOUS_SESSIONS_PER_KB,
      anonymousSessionsPerVisitor: e.WIDGET_ANONYMOUS_SESSIONS_PER_VISITOR,
      feedbackPerSession: e.FEEDBACK_PER_SESSION,
      feedbackPerOrgPerDay: e.FEEDBACK_PER_ORG_PER_DAY,
    },
    failedKeys: { perAddress: e.FAILED_KEYS_PER_ADDRESS, perPrefix: e.FAILED_KEYS_PER_PREFIX, windowSeconds: e.FAILED_KEYS_WINDOW_SECONDS },
    trustProxy: e.TRUST_PROXY,
    http: { headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS, requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS, shutdownDrainMs: e.SHUTDOWN_DRAIN_MS },
    realtime: (e.OPENAI_REALTIME_API_KEY ?? e.OPENAI_API_KEY)
      ? { apiKey: (e.OPENAI_REALTIME_API_KEY ?? e.OPENAI_API_KEY)!, model: e.OPENAI_REALTIME_MODEL, url: e.OPENAI_REALTIME_URL }
      : null,
    voice: {
      maxSessionSeconds: e.VOICE_MAX_SESSION_SECONDS,
      idleTimeoutSeconds: e.VOICE_IDLE_TIMEOUT_SECONDS,
      maxFramesPerSecond: e.VOICE_MAX_FRAMES_PER_SECOND,
      maxBufferedBytes: e.VOICE_MAX_BUFFERED_BYTES,
    },
    metrics: { token: e.METRICS_TOKEN ?? null, workerPort: e.METRICS_PORT ?? null },
    people: { ownerEmail: e.OWNER_EMAIL, smtpUrl: e.SMTP_URL ?? null, smtpFrom: e.SMTP_FROM },
  });
}
