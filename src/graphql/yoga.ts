/**
 * graphql-yoga over the Pothos schema at /graphql. AppErrors become GraphQL errors whose
 * extensions carry the same code table the other transports use; anything else is masked.
 */
import { getOperationAST, GraphQLError } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { schema } from '../../schema/index';
import { stoppedBy } from '../context';
import { AppError, ERROR_CODES, publicDetails, toAppError } from '../errors';
import { identifyRequest, type HttpDeps } from '../http/authenticate-request';
import { createRateLimiter } from '../http/rate-limit';
import type { GraphQLContext } from '../../schema/builder';
import { countListNodes, createNodeBudget, graphqlLimitPlugins } from './limits';
import { averageChunkChars, DEFAULT_CHUNK_CHARS } from '../services/documents/text-size';
import { CSRF_HEADER, dashboardOrigin, readSessionCookie } from '../http/session-cookie';

type ServerContext = { requestId: string; clientIp: string; setCookie: (cookie: string) => void };

/**
 * A query stops its database work when its client goes away (its ServiceContext carries the
 * request's signal, src/context.ts); a mutation or subscription runs to its end. Placed before the
 * cost plugin, whose charge authenticates the request.
 */
const stopQueriesWithTheirClient: Plugin<GraphQLContext> = {
  onExecute: ({ args }) => {
    if (getOperationAST(args.document, args.operationName)?.operation === 'query') args.contextValue.stopWithClient();
  },
};

export function createGraphQLHandler(deps: HttpDeps) {
  // Keyless requests (introspection) get the per-key budget, per client IP.
  const perIp = createRateLimiter(deps.config.rateLimitPerMinute, { deps, name: 'graphql_ip' });
  countListNodes(schema);
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    plugins: [stopQueriesWithTheirClient, ...(graphqlLimitPlugins() as Plugin<GraphQLContext>[])],
    graphqlEndpoint: '/graphql',
    // Credentials (the session cookie) and the CSRF header are granted to the dashboard's own origin
    // only; any other origin may call with an API key, never with the browser's cookie.
    cors: (request) => {
      const origin = request.headers.get('origin');
      const own = dashboardOrigin(request, { trustProxy: deps.config.trustProxy });
      let sameHost = false;
      try {
        sameHost = origin !== null && own.host !== null && new URL(origin).host === own.host;
      } catch {
        sameHost = false;
      }
      const common = { methods: ['GET', 'POST'], exposedHeaders: ['x-request-id', 'retry-after'], maxAge: 600 };
      if (sameHost) return { ...common, origin: [origin!], credentials: true, allowedHeaders: ['content-type', 'accept', 'x-api-key', 'x-request-id', CSRF_HEADER] };
      return { ...common, origin: ['*'], credentials: false, allowedHeaders: ['content-type', 'accept', 'x-api-key', 'x-request-id'] };
    },
    graphiql: deps.config.graphiql,
    landingPage: false,
    logging: false,
    context: ({ request, requestId, clientIp, setCookie }) => {
      let authed: ReturnType<GraphQLContext['auth']> | undefined;
      let identified: ReturnType<typeof identifyRequest> | undefined;
      let cost = 1;
      let signal: AbortSignal | null = null;
      const credentialed = Boolean(request.headers.get('x-api-key') || readSessionCookie(request.headers));
      // GraphQL alone accepts the dashboard's session cookie (under the origin and CSRF rules).
      const identify = () => (identified ??= identifyRequest(deps, request.headers, requestId, { sessionCookie: true, clientIp }));
      const auth = () =>
        (authed ??= identify().then(async ({ ctx, charge }) => {
          await charge(cost);
          return signal ? stoppedBy(ctx, signal) : ctx;
        }));
      // Called once before execution (src/graphql/limits.ts): the whole request's cost is charged up front,
      // to the key or dashboard session when there is one, else to the client's IP.
      const chargeCost = async (points: number) => {
        cost = points;
        if (request.headers.get('x-api-key')) return void (await auth());
        if (readSessionCookie(request.headers)) {
          try {
            return void (await auth());
          } catch (err) {
            // A session that has ended (expired, revoked, from another database) must not lock the
            // admin out: the request is charged like a keyless one, so signIn can replace the cookie,
            // while every field that needs the session still answers this same 401 through auth().
            if (!(err instanceof AppError) || err.code !== 'unauthorized') throw err;
          }
        }
        await perIp.consume(`graphql-ip:${clientIp}`, points);
      };
      // Priced from the caller's own chunks, identified before its cost is known and charged.
      const chunkChars = async () => {
        if (!credentialed) return DEFAULT_CHUNK_CHARS;
        try {
          return averageChunkChars((await identify()).ctx);
        } catch (err) {
          // An ended session cookie is priced like a keyless request (see chargeCost).
          if (request.headers.get('x-api-key') || !(err instanceof AppError) || err.code !== 'unauthorized') throw err;
          return DEFAULT_CHUNK_CHARS;
        }
      };
      const stopWithClient = () => void (signal = request.signal);
      return { requestId, deps, clientIp, request, setCookie, auth, chargeCost, chunkChars, stopWithClient, nodeBudget: createNodeBudget() } as GraphQLContext;
    },
    maskedErrors: {
      maskError(error) {
        // Already translated (limits.ts): keep its code.
        if (error instanceof GraphQLError && error.extensions?.app_code) return error;
        // Errors without a path come from parsing, validation or variable coercion: the request's fault.
        if (error instanceof GraphQLError && !error.path) {
          return new GraphQLError(error.message, {
            nodes: error.nodes,
            // A refused document (too deep, too many aliases or tokens, invalid) is a 400 whatever the Accept header.
            extensions: { ...error.extensions, code: ERROR_CODES.invalid_input.graphql, app_code: 'invalid_input', http: { status: 400 } },
          });
        }
        const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
        const appError = toAppError(original);
        if (appError.code === 'internal_error') deps.logger.error({ err: original }, 'graphql resolver failed');
        return new GraphQLError(appError.message, {
          nodes: error instanceof GraphQLError ? error.nodes : undefined,
          path: error instanceof GraphQLError ? error.path : undefined,
          extensions: {
            code: ERROR_CODES[appError.code].graphql,
            app_code: appError.code,
            ...(appError.details.field ? { field: appError.details.field } : {}),
            ...(appError.details.retryAfter ? { retry_after: appError.details.retryAfter } : {}),
            ...(publicDetails(appError) ? { details: publicDetails(appError) } : {}),
          },
        });
      },
    },
  });
}
