/**
 * tRPC for internal frontends. The boundary middleware maps AppErrors (and zod input errors) through
 * the shared code table, so tRPC reports exactly what REST and GraphQL report.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { ERROR_CODES, publicDetails, toAppError, type AppError } from '../errors';
import { authenticateRequest, type HttpDeps } from '../http/authenticate-request';
import { zodErrorToAppError } from '../validation';

export type TrpcContext = { deps: HttpDeps; headers: Headers; requestId: string; receivedAt: number; clientIp: string };

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

/** Every procedure needs an API key; `ctx.svc` is the same ServiceContext REST and GraphQL use. */
export const authedProcedure = t.procedure.use(errorBoundary).use(async ({ ctx, next }) => {
  const svc = await authenticateRequest(ctx.deps, ctx.headers, ctx.requestId, { receivedAt: ctx.receivedAt, clientIp: ctx.clientIp });
  return next({ ctx: { ...ctx, svc } });
});
