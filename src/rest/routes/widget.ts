/**
 * /api/widget/*: the public, keyless endpoints behind the embeddable widget. Mounted before /api so
 * the API-key middleware never sees them; everything under the prefix is answered here (unknown
 * paths are 404, not "missing API key").
 *
 *   POST /api/widget/session  {org, kb}                  -> {token, expires_at, kb: {id, name}, voice: {available}}
 *   POST /api/widget/chat     {message, session_id?}     -> SSE, the events of /api/rag/chat with stream: true
 *   POST /api/widget/history  {session_id}               -> {session_id, messages: [{role, content, citations, message_id?, feedback?}]}
 *   POST /api/widget/feedback {session_id, message_id, rating: up|down|null, comment?} -> {message_id, rating, comment}
 *
 * CORS: the request's Origin is echoed (with Vary: Origin) on every response, refusals included, so
 * the widget can read and show why it was refused. That is safe because nothing here relies on
 * ambient credentials (no cookies; credentials mode is never allowed): access is decided by the
 * origin allowlist at session time and the origin-bound token afterwards.
 *
 * Limits: every request counts against its client IP (WIDGET_RATE_LIMIT_PER_MINUTE); each chat
 * message also against its widget session (WIDGET_SESSION_RATE_LIMIT_PER_MINUTE). Bodies are JSON
 * and at most a few KB. Ratings: FEEDBACK_PER_SESSION per conversation, FEEDBACK_PER_ORG_PER_DAY
 * per organisation and UTC day (429 with Retry-After until midnight).
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { AppDeps } from '../../context';
import type { ChatEvent } from '../../services/chat/send-chat-message';
import { AppError } from '../../errors';
import { clientIp } from '../../http/client-ip';
import type { FailedKeyThrottle } from '../../http/failed-key-throttle';
import { createRateLimiter, createWindowCounter } from '../../http/rate-limit';
import { rateAnswer } from '../../services/insights/rate-answer';
import { authenticateWidget } from '../../services/widget/authenticate-widget';
import { startWidgetSession } from '../../services/widget/start-widget-session';
import { startWidgetChat, widgetHistory } from '../../services/widget/widget-chat';
import type { HonoEnv } from '../hono-env';
import { sseResponse } from '../sse';

const MAX_BODY_BYTES = 16 * 1024;

/**
 * `failedKeys`: refused widget tokens count against the address like refused API keys.
 * `now`: the clock of the daily feedback window (tests move it).
 */
export function createWidgetApi(deps: AppDeps, failedKeys: FailedKeyThrottle, now: () => number = Date.now) {
  const app = new Hono<HonoEnv>();
  const perIp = createRateLimiter(deps.config.widget.ipRateLimitPerMinute, { deps, name: 'widget_ip' });
  const perSession = createRateLimiter(deps.config.widget.sessionRateLimitPerMinute, { deps, name: 'widget_session' });
  // Fixed UTC days: the window number is the day since the epoch.
  const feedbackPerOrg = createWindowCounter(86_400, { deps, name: 'feedback_org' }, now);

  app.use(
    '*',
    cors({
      origin: (origin) => origin || null,
      allowMethods: ['POST', 'OPTIONS'],
      allowHeaders: ['content-type', 'authorization'],
      exposeHeaders: ['Retry-After', 'x-request-id'],
      maxAge: 600,
    }),
  );

  app.use('*', async (c, next) => {
    await perIp.consume(`ip:${clientIp(c, deps.config.trustProxy)}`);
    if (c.req.method === 'POST' && !/^application\/json\b/i.test(c.req.header('content-type') ?? '')) {
      throw new AppError('unsupported_media_type', 'Send the request body as JSON with content-type: application/json');
    }
    return next();
  });
  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new AppError('payload_too_large', `Request body exceeds ${MAX_BODY_BYTES} bytes`);
      },
    }),
  );

  const auth = async (c: Context<HonoEnv>) => {
    const address = clientIp(c, deps.config.trustProxy);
    await failedKeys.check(address, null);
    try {
      return await authenticateWidget(deps, { authorization: c.req.header('authorization'), origin: c.req.header('origin'), requestId: c.var.requestId, visitor: address });
    } catch (err) {
      if (err instanceof AppError && err.code === 'unauthorized') await failedKeys.fail(address, null);
      throw err;
    }
  };

  app.post('/session', async (c) => c.json(await startWidgetSession(deps, await jsonBody(c), c.req.header('origin')), 200));

  app.post('/chat', async (c) => {
    const caller = await auth(c);
    await perSession.consume(`session:${caller.claims.jti}`);
    const abort = new AbortController();
    c.req.raw.signal?.addEventListener('abort', () => abort.abort());
    const events = await startWidgetChat(caller, await jsonBody(c), abort.signal);
    // sseResponse only serialises the citations it is given; widget citations are a subset of the fields.
    return sseResponse(c, abort, events as AsyncIterable<ChatEvent>, { heartbeatMs: deps.config.sseHeartbeatMs });
  });

  app.post('/history', async (c) => c.json(await widgetHistory(await auth(c), await jsonBody(c)), 200));

  app.post('/feedback', async (c) => {
    const caller = await auth(c);
    await perSession.consume(`session:${caller.claims.jti}`);
    const today = await feedbackPerOrg.read(caller.ctx.org.id);
    if (today.count >= deps.config.widget.feedbackPerOrgPerDay) {
      throw new AppError('rate_limited', `This organisation has received ${deps.config.widget.feedbackPerOrgPerDay} ratings today, the most a day takes; retry in ${today.retryAfter}s`, {
        retryAfter: today.retryAfter,
      });
    }
    const rated = await rateAnswer(caller, await jsonBody(c));
    await feedbackPerOrg.record(caller.ctx.org.id);
    return c.json(rated, 200);
  });

  app.all('*', (c) => {
    throw new AppError('not_found', `No route for ${c.req.method} ${c.req.path}`);
  });
  return app;
}

async function jsonBody(c: Context): Promise<any> {
  try {
    return await c.req.json();
  } catch {
    throw new AppError('invalid_input', 'Malformed request body: expected valid JSON');
  }
}

/** Kept here too: the widget is where the address first mattered. */
export { clientIp, rateLimitKeyForIp } from '../../http/client-ip';
