/**
 * What one GraphQL request may cost. Parsing stops after MAX_TOKENS tokens (so 200,000 aliased
 * `__typename` or a nesting 5,000 deep is refused before it is even a document); validation refuses
 * documents deeper than MAX_DEPTH or with more than MAX_ALIASES aliases; and each request is charged
 * its cost against the same rate limit REST uses: one point per root field, as if each were its own
 * REST request (50 aliased `search` fields cost 50). Requests without an API key (introspection)
 * are charged to the client's IP instead.
 */
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { GraphQLError, Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError, ERROR_CODES, toAppError } from '../errors';

export const GRAPHQL_LIMITS = {
  maxTokens: 2_000,
  maxDepth: 12,
  maxAliases: 15,
  /** Root fields per request; with the alias limit this bounds the work one request can ask for. */
  maxCost: 30,
} as const;

/** The points a request costs: its root fields, counted through fragments, at least 1. */
export function operationCost(document: DocumentNode, operationName?: string | null): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operations.find((o) => !operationName || o.name?.value === operationName) ?? operations[0];
  if (!operation) return 1;
  const seen = new Set<string>();
  const count = (set: SelectionSetNode): number => {
    let n = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) n += s.name.value === '__typename' ? 0 : 1;
      else if (s.kind === Kind.INLINE_FRAGMENT) n += count(s.selectionSet);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const fragment = fragments.get(s.name.value);
        if (fragment) n += count(fragment.selectionSet);
      }
    }
    return n;
  };
  return Math.max(1, count(operation.selectionSet));
}

/** A GraphQL error that already speaks the shared code table (maskError passes it through). */
export function appGraphQLError(err: AppError): GraphQLError {
  return new GraphQLError(err.message, {
    extensions: {
      code: ERROR_CODES[err.code].graphql,
      app_code: err.code,
      ...(err.details.retryAfter ? { retry_after: err.details.retryAfter } : {}),
      http: {
        status: err.status,
        ...(err.details.retryAfter ? { headers: { 'Retry-After': String(err.details.retryAfter) } } : {}),
      },
    },
  });
}

type CostContext = {
  request: Request;
  /** Charges the request's cost: to its API key when it has one, otherwise to its IP. */
  chargeCost: (cost: number) => Promise<void>;
};

function costPlugin(): Plugin<CostContext> {
  const charge = async (
    args: { document: DocumentNode; operationName?: string | null | undefined; contextValue: CostContext },
    stop: (result: { errors: GraphQLError[] }) => void,
  ) => {
    const cost = operationCost(args.document, args.operationName);
    try {
      if (cost > GRAPHQL_LIMITS.maxCost) {
        throw new AppError('invalid_input', `The request asks for ${cost} root fields; at most ${GRAPHQL_LIMITS.maxCost} are allowed in one request`);
      }
      await args.contextValue.chargeCost(cost);
    } catch (err) {
      stop({ errors: [appGraphQLError(toAppError(err))] });
    }
  };
  return {
    onExecute: ({ args, setResultAndStopExecution }) => charge(args, setResultAndStopExecution),
    // Subscriptions (the streamed chat) do not pass through onExecute: charged the same, once per request.
    onSubscribe: ({ args, setResultAndStopExecution }) => charge(args, setResultAndStopExecution),
  };
}

export function graphqlLimitPlugins(): Plugin<CostContext>[] {
  const exposeLimits = true;
  return [
    maxTokensPlugin({ n: GRAPHQL_LIMITS.maxTokens, exposeLimits }) as Plugin<CostContext>,
    maxDepthPlugin({ n: GRAPHQL_LIMITS.maxDepth, exposeLimits, flattenFragments: true }) as Plugin<CostContext>,
    maxAliasesPlugin({ n: GRAPHQL_LIMITS.maxAliases, exposeLimits }) as Plugin<CostContext>,
    costPlugin(),
  ];
}
