/**
 * The HTTP application: one fetch handler for REST (/api), GraphQL (/graphql), tRPC (/trpc),
 * health probes and the widget script. Tests call `app.fetch(new Request(...))` directly.
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { sql } from 'kysely';
import { isMigrated } from '../db/migrate';
import { AppError, errorBody, toAppError } from './errors';
import { createGraphQLHandler } from './graphql/yoga';
import type { HttpDeps } from './http/authenticate-request';
import { bodyLimitFor, limitBodies } from './http/body-limit';
import { discardRequestBody } from './http/discard-body';
import { drainGate, type Drain } from './http/graceful-shutdown';
import { metricsResponse } from './http/metrics-endpoint';
import { createFailedKeyThrottle } from './http/failed-key-throttle';
import { createSignInThrottle } from './http/sign-in-throttle';
import { createRateLimiter } from './http/rate-limit';
import { httpRequestDuration } from './metrics';
import { routePath } from 'hono/route';
import type { AppDeps } from './context';
import type { HonoEnv } from './rest/hono-env';
import { createRestApi } from './rest/rest-api';
import { clientIp } from './http/client-ip';
import { createWidgetApi } from './rest/routes/widget';
import { createEmbedRoutes } from './embed/embed-routes';
import { createTrpcHandler } from './trpc/handler';
import { createDashboardRoutes } from './dashboard/dashboard-routes';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * `drain`: the web process's shutdown state (src/http/graceful-shutdown.ts); tests' apps have none.
 * `now`: the clock of the time windows the app counts in itself (failed keys); tests move it.
 */
export function createApp(appDeps: AppDeps & Partial<Pick<HttpDeps, 'rateLimiter' | 'failedKeys'>> & { drain?: Drain; now?: () => number }) {
  const deps: HttpDeps = {
    ...appDeps,
    rateLimiter: appDeps.rateLimiter ?? createRateLimiter(appDeps.config.rateLimitPerMinute, { deps: appDeps, name: 'api_key' }),
    failedKeys: appDeps.failedKeys ?? createFailedKeyThrottle(appDeps, appDeps.now),
    signIns: createSignInThrottle(appDeps, appDeps.now),
  };
  const app = new Hono<HonoEnv>();
  const graphql = createGraphQLHandler(deps);
  const trpc = createTrpcHandler(deps);

  app.use('*', async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    c.set('requestId', requestId);
    c.set('receivedAt', Date.now());
    c.set('logger', deps.logger.child({ requestId }));
    const started = performance.now();
    await next();
    c.header('x-request-id', requestId);
    // The route's pattern (/api/kbs/:id), never the raw path: one series per route, not per id.
    const route = c.res.status === 404 && routePath(c, -1) === '*' ? 'unmatched' : routePath(c, -1);
    httpRequestDuration.observe({ method: c.req.method, route, status: String(c.res.status) }, (performance.now() - started) / 1000);
    c.var.logger.info(
      { method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started) },
      'request',
    );
  });

  app.use('*', limitBodies(deps.config));
  if (appDeps.drain) app.use('*', drainGate(appDeps.drain));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/metrics', (c) => metricsResponse(deps.config, c.req.header('authorization')));
  app.get('/readyz', async (c) => {
    try {
      await sql`select 1`.execute(deps.db);
      if (!(await isMigrated(deps.db))) return c.json({ status: 'unavailable', reason: 'migrations pending' }, 503);
      return c.json({ status: 'ok' });
    } catch {
      return c.json({ status: 'unavailable', reason: 'database unreachable' }, 503);
    }
  });

  // Public (keyless) widget endpoints first: they answer everything under their prefix.
  app.route('/api/widget', createWidgetApi(deps, deps.failedKeys, appDeps.now));
  app.route('/api', createRestApi(deps));
  app.route('/embed', createEmbedRoutes(deps.config, deps.logger));
  app.on(['GET', 'POST', 'OPTIONS'], '/graphql', async (c) => {
    const cookies: string[] = [];
    const res = await graphql.fetch(c.req.raw, { requestId: c.var.requestId, clientIp: clientIp(c, deps.config.trustProxy), setCookie: (v: string) => void cookies.push(v) });
    // yoga answers a body it has no parser for (no or an unknown content-type) with an empty text/plain 415.
    if (res.status === 415) return c.json(errorBody(new AppError('unsupported_media_type', 'A GraphQL POST is application/json or multipart/form-data')), 415);
    if (cookies.length === 0) return res;
    const headers = new Headers(res.headers);
    for (const v of cookies) headers.append('set-cookie', v);
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  });
  app.route('/', createDashboardRoutes(deps));
  app.all('/trpc/*', (c) => trpc(c.req.raw, c.var.requestId, c.var.receivedAt, clientIp(c, deps.config.trustProxy)));

  app.notFound((c) => c.json(errorBody(new AppError('not_found', `No route for ${c.req.method} ${c.req.path}`)), 404));

  app.onError(async (err, c) => {
    const requestId = c.var.requestId;
    let appError: AppError;
    if (err instanceof HTTPException && err.status === 400) {
      appError = new AppError('invalid_input', 'Malformed request body: expected valid JSON');
    } else {
      appError = toAppError(err, requestId);
    }
    if (appError.code === 'internal_error') {
      (c.var.logger ?? deps.logger).error({ err, requestId }, 'unhandled error');
    }
    // The database is down: the client will retry, so let it finish sending first (src/http/discard-body.ts).
    if (appError.code === 'unavailable') await discardRequestBody(c.req.raw, { maxBytes: bodyLimitFor(c.req.raw.headers, deps.config), maxMs: 5_000 });
    if (appError.details.retryAfter) c.header('Retry-After', String(appError.details.retryAfter));
    c.header('x-request-id', requestId);
    return c.json(errorBody(appError), appError.status as 400);
  });

  return app;
}

export type App = ReturnType<typeof createApp>;
