/**
 * tRPC for internal frontends. The boundary middleware maps AppErrors (and zod input errors) through
 * the shared code table, so tRPC reports exactly what REST and GraphQL report.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { ERROR_CODES, publicDetails, toAppError, type AppError } from '../errors';
import { identifyRequest, type HttpDeps } from '../http/authenticate-request';
import { zodErrorToAppError } from '../validation';
import { stoppedBy, type ServiceContext } from '../context';
import { assertWithinReadBudget, priceTrpcCalls, readPoints, type TrpcCall } from '../http/read-cost';
import { averageChunkChars } from '../services/documents/text-size';

/** `calls`: every call of the HTTP request (a batch holds several), priced together before any runs. */
export type TrpcContext = { deps: HttpDeps; headers: Headers; requestId: string; receivedAt: number; clientIp: string; calls?: TrpcCall[] };

/** One price per HTTP request, however many calls its batch holds (keyed by the shared context). */
const priced = new WeakMap<object, Promise<void>>();

function priceRequest(ctx: TrpcContext, svc: ServiceContext, charge: (points: number) => Promise<void>): Promise<void> {
  let price = priced.get(ctx);
  if (!price) {
    price = (async () => {
      const bytes = priceTrpcCalls(ctx.calls ?? [], await averageChunkChars(svc));
      const n = ctx.calls?.length ?? 1;
      assertWithinReadBudget(bytes, n > 1 ? `a batch of ${n} calls, priced as one request` : 'its requested page size');
      // Each call already cost a point when it authenticated; the rest of the work is charged once.
      const extra = readPoints(bytes) - n;
      if (extra > 0) await charge(extra);
    })();
    priced.set(ctx, price);
  }
  return price;
}

const appErrorOf = (err: TRPCError): AppError | null => {
  const cause = err.cause;
  if (cause instanceof ZodError) return zodErrorToAppError(cause);
  if (err.code === 'PARSE_ERROR') return null;
  return cause ? toAppError(cause) : null;
};

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error }) {
    const appError = error.cause && (error.cause as { name?: string }).name === 'AppError' ? (error.cause as AppError) : null;
    return {
      ...shape,
      message: appError?.message ?? shape.message,
      data: {
        code: shape.data.code,
        httpStatus: shape.data.httpStatus,
        path: shape.data.path,
        app_code: appError?.code ?? null,
        field: appError?.details.field ?? null,
        ...(appError && publicDetails(appError) ? { details: publicDetails(appError) } : {}),
      },
    };
  },
});

const errorBoundary = t.middleware(async ({ ctx, next }) => {
  const result = await next();
  if (!result.ok) {
    const appError = appErrorOf(result.error);
    if (appError) {
      if (appError.code === 'internal_error') ctx.deps.logger.error({ err: result.error.cause, requestId: ctx.requestId }, 'trpc procedure failed');
      throw new TRPCError({ code: ERROR_CODES[appError.code].trpc, message: appError.message, cause: appError });
    }
  }
  return result;
});

export const router = t.router;

/** Who is calling, looked up once per HTTP request however many calls its batch holds. */
const identified = new WeakMap<object, ReturnType<typeof identifyRequest>>();

/**
 * Every procedure needs an API key or the dashboard's session cookie (with GraphQL's rules: same
 * origin and the CSRF header); `ctx.svc` is the same ServiceContext REST and GraphQL use, with the
 * caller's role. A query stops its database work when its client goes away (the call's signal); a
 * mutation runs to its end. Each call costs one rate-limit point.
 */
export const authedProcedure = t.procedure.use(errorBoundary).use(async ({ ctx, next, type, signal }) => {
  let identity = identified.get(ctx);
  if (!identity) {
    identity = identifyRequest(ctx.deps, ctx.headers, ctx.requestId, { sessionCookie: true, receivedAt: ctx.receivedAt, clientIp: ctx.clientIp });
    identified.set(ctx, identity);
  }
  const { ctx: caller, charge } = await identity;
  await charge(1);
  const svc = type === 'query' && signal ? stoppedBy(caller, signal) : caller;
  await priceRequest(ctx, svc, charge);
  return next({ ctx: { ...ctx, svc } });
});
