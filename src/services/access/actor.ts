/**
 * Who is calling, as authorisation and the audit log see it. Every ServiceContext carries one:
 * transports build it from the API key, the dashboard session's person, or (jobs, the CLI) the
 * system itself.
 */
import type { KeyScope, Role } from '../../../db/types';
import type { AdminSessionId, ApiKeyId, UserId } from '../../ids';

export type Actor = {
  /** `api_key`: REST/GraphQL/tRPC with x-api-key; `user`: a person's dashboard session; `key_session`: a dashboard session opened with an API key; `visitor`: the widget; `system`: jobs and the CLI. */
  type: 'api_key' | 'user' | 'key_session' | 'visitor' | 'system';
  /** The key's or the person's id; null for the system and visitors. */
  id: ApiKeyId | UserId | null;
  /** What the audit log shows: the person's email, the key's prefix, "system", "widget visitor". */
  label: string;
  role: Role;
  scope: KeyScope;
  /** The dashboard session the request came through. */
  sessionId?: AdminSessionId;
  /** The caller's address as rate limits key it (null when not over HTTP). */
  ip?: string | null;
};

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null, label: 'system', role: 'owner', scope: 'full' };
export const VISITOR_ACTOR: Actor = { type: 'visitor', id: null, label: 'widget visitor', role: 'viewer', scope: 'query' };

export function apiKeyActor(key: { id: ApiKeyId; prefix: string; scope: KeyScope }, ip?: string | null): Actor {
  return { type: 'api_key', id: key.id, label: `key ${key.prefix}…`, role: 'owner', scope: key.scope, ip: ip ?? null };
}
