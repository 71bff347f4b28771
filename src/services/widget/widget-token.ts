/**
 * Widget session tokens: what the public widget endpoints accept instead of an API key.
 *
 * A token is `base64url(claims JSON) "." base64url(HMAC-SHA256(key, "gw-widget.v1." + payload))`.
 * The claims bind it to one organisation, one KB and the Origin that asked for it, and it expires
 * after WIDGET_TOKEN_TTL_SECONDS. Stateless on purpose: verifying is one HMAC, no database read, so
 * a flood of forged tokens costs nothing but the per-IP rate limit.
 *
 * The key is WIDGET_TOKEN_SECRET when configured; otherwise 32 random bytes generated once and kept
 * in `app_secrets`, so every web process of an install shares it with no configuration. Rotating:
 * change the variable (or delete the row); widgets then get 401 and simply start a new session.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { AppDeps } from '../../context';
import { AppError } from '../../errors';
import { randomBase62, type KbId, type OrgId } from '../../ids';

export const WIDGET_TOKEN_TTL_SECONDS = 30 * 60;
const SIGNING_CONTEXT = 'gw-widget.v1.';
const SECRET_NAME = 'widget_token_secret';

const ZClaims = z
  .object({
    v: z.literal(1),
    /** Token id: the key of the per-session rate limit. */
    jti: z.string().min(8).max(64),
    org: z.string().min(1),
    kb: z.string().min(1),
    origin: z.string().min(1),
    iat: z.number().int(),
    exp: z.number().int(),
  })
  .strict();

export type WidgetClaims = { v: 1; jti: string; org: OrgId; kb: KbId; origin: string; iat: number; exp: number };

const keys = new WeakMap<object, Promise<Buffer>>();

/** The signing key: configured, or loaded (created on first use) from the database, memoised per database. */
export function widgetTokenKey(deps: Pick<AppDeps, 'db' | 'config'>): Promise<Buffer> {
  if (deps.config.widget.tokenSecret) return Promise.resolve(Buffer.from(deps.config.widget.tokenSecret, 'utf8'));
  let key = keys.get(deps.db);
  if (!key) {
    key = loadOrCreateKey(deps.db).catch((err) => {
      keys.delete(deps.db);
      throw err;
    });
    keys.set(deps.db, key);
  }
  return key;
}

async function loadOrCreateKey(db: AppDeps['db']): Promise<Buffer> {
  // Two processes starting together both insert; "do nothing" makes the first one win for both.
  await db
    .insertInto('app_secrets')
    .values({ name: SECRET_NAME, value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('app_secrets').select('value').where('name', '=', SECRET_NAME).executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64url');
}

function sign(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(SIGNING_CONTEXT + payload).digest();
}

export function signWidgetToken(
  key: Buffer,
  claims: { org: OrgId; kb: KbId; origin: string },
  now = Date.now(),
): { token: string; claims: WidgetClaims } {
  const iat = Math.floor(now / 1000);
  const full: WidgetClaims = { v: 1, jti: randomBase62(22), ...claims, iat, exp: iat + WIDGET_TOKEN_TTL_SECONDS };
  const payload = Buffer.from(JSON.stringify(full)).toString('base64url');
  return { token: `${payload}.${sign(key, payload).toString('base64url')}`, claims: full };
}

const invalidToken = () => new AppError('unauthorized', 'The widget session is invalid or has expired; start a new session');

/** Every failure reads the same: a forged, tampered, malformed or expired token is just "invalid". */
export function verifyWidgetToken(key: Buffer, token: string, now = Date.now()): WidgetClaims {
  const parts = token.split('.');
  if (parts.length !== 2 || !parts[0] || !parts[1] || token.length > 2048) throw invalidToken();
  const [payload, signature] = parts as [string, string];
  const presented = Buffer.from(signature, 'base64url');
  const expected = sign(key, payload);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) throw invalidToken();
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalidToken();
  }
  const parsed = ZClaims.safeParse(json);
  if (!parsed.success || parsed.data.exp * 1000 <= now) throw invalidToken();
  return parsed.data as WidgetClaims;
}
