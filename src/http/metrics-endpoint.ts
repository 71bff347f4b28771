/**
 * GET /metrics: the process's Prometheus registry, for a bearer METRICS_TOKEN only (compared in
 * constant time). Without a configured token the endpoint does not exist (404), so a deploy never
 * publishes its internals by accident. Throws AppError; callers render it as every other error.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config';
import { AppError } from '../errors';
import { metricsRegistry } from '../metrics';

const digest = (s: string) => createHash('sha256').update(s).digest();

export async function metricsResponse(config: Pick<Config, 'metrics'>, authorization: string | undefined): Promise<Response> {
  const token = config.metrics.token;
  if (!token) throw new AppError('not_found', 'No route for GET /metrics (set METRICS_TOKEN to enable it)');
  const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '';
  if (!timingSafeEqual(digest(given), digest(token))) {
    throw new AppError('unauthorized', 'Send the METRICS_TOKEN as Authorization: Bearer <token>');
  }
  return new Response(await metricsRegistry.metrics(), { headers: { 'content-type': metricsRegistry.contentType } });
}
