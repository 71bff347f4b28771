/** The widget's client of the public /api/widget endpoints. */
import { readSse, type SseEvent } from './sse';
import type { WidgetConfig } from './types';

/** `used: false`: the answer was refused and this is only one of the closest passages found. */
/** `source_type: 'annotation'`: a curated answer, titled by its question. */
export type Citation = { marker: number; filename: string; url: string | null; page: number | null; heading: string | null; snippet: string; used?: boolean; source_type?: 'document' | 'annotation'; title?: string | null };
export type Rating = 'up' | 'down' | null;
export type HistoryMessage = { role: 'user' | 'assistant'; content: string; citations: Citation[]; message_id?: string; feedback?: Rating };

export type Session = {
  token: string;
  /** Local clock time to renew before; from the server's expires_in, so a skewed client clock does not matter. */
  renewAt: number;
  kb: { id: string; name: string };
  /** reason: why not, when the server says (for the site owner's console). */
  voice: { available: boolean; reason?: string };
};

export type ErrorKind = 'refused' | 'not_found' | 'rate_limited' | 'expired' | 'invalid' | 'network' | 'server';

export class WidgetError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly retryAfter = 0,
  ) {
    super(message);
  }
}

const KIND_BY_STATUS: Record<number, ErrorKind> = { 400: 'invalid', 401: 'expired', 403: 'refused', 404: 'not_found', 413: 'invalid', 415: 'invalid', 429: 'rate_limited' };

async function post(config: WidgetConfig, path: string, body: unknown, token?: string, signal?: AbortSignal): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(new URL(`api/widget/${path}`, config.base).href, {
      method: 'POST',
      mode: 'cors',
      credentials: 'omit',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new WidgetError('network', 'network');
  }
  if (res.ok) return res;
  let message = '';
  try {
    message = String(((await res.json()) as { error?: { message?: string } }).error?.message ?? '');
  } catch {
    // not our JSON error body (a proxy page, say)
  }
  const retryAfter = Number(res.headers.get('retry-after')) || 0;
  throw new WidgetError(KIND_BY_STATUS[res.status] ?? 'server', message || `HTTP ${res.status}`, retryAfter);
}

export async function createSession(config: WidgetConfig): Promise<Session> {
  const res = await post(config, 'session', { org: config.org, kb: config.kb });
  const body = (await res.json()) as { token: string; expires_in: number; kb: Session['kb']; voice: Session['voice'] };
  // Renew a minute early so a message is never sent with a token about to expire.
  return { token: body.token, renewAt: Date.now() + Math.max(30, body.expires_in - 60) * 1000, kb: body.kb, voice: body.voice };
}

export async function fetchHistory(config: WidgetConfig, session: Session, sessionId: string): Promise<HistoryMessage[]> {
  const res = await post(config, 'history', { session_id: sessionId }, session.token);
  return ((await res.json()) as { messages: HistoryMessage[] }).messages;
}

export async function* chat(
  config: WidgetConfig,
  session: Session,
  body: { message: string; session_id?: string },
  signal: AbortSignal,
): AsyncGenerator<SseEvent> {
  const res = await post(config, 'chat', body, session.token, signal);
  if (!res.body) throw new WidgetError('server', 'empty response');
  yield* readSse(res.body);
}

/** A visitor's rating of one answer of this conversation (null clears it). */
export async function rate(config: WidgetConfig, session: Session, body: { session_id: string; message_id: string; rating: Rating; comment?: string }) {
  await post(config, 'feedback', body, session.token);
}
