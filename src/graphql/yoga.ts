/**
 * graphql-yoga over the Pothos schema at /graphql. AppErrors become GraphQL errors whose
 * extensions carry the same code table the other transports use; anything else is masked.
 */
import { GraphQLError } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { schema } from '../../schema/index';
import { ERROR_CODES, toAppError } from '../errors';
import { authenticateRequest, type HttpDeps } from '../http/authenticate-request';
import type { GraphQLContext } from '../../schema/builder';

type ServerContext = { requestId: string; setCookie: (cookie: string) => void };

export function createGraphQLHandler(deps: HttpDeps) {
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: deps.config.graphiql,
    landingPage: false,
    logging: false,
    context: ({ request, requestId, setCookie }) => {
      let authed: ReturnType<GraphQLContext['auth']> | undefined;
      return {
        requestId,
        deps,
        request,
        setCookie,
        // GraphQL alone accepts the dashboard's session cookie (under the origin and CSRF rules).
        auth: () => (authed ??= authenticateRequest(deps, request.headers, requestId, { sessionCookie: true })),
      } as GraphQLContext;
    },
    maskedErrors: {
      maskError(error) {
        // Errors without a path come from parsing, validation or variable coercion: the request's fault.
        if (error instanceof GraphQLError && !error.path) {
          return new GraphQLError(error.message, {
            nodes: error.nodes,
            extensions: { ...error.extensions, code: ERROR_CODES.invalid_input.graphql, app_code: 'invalid_input' },
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
          },
        });
      },
    },
  });
}
