/**
 * What one GraphQL request may cost. Parsing stops after MAX_TOKENS tokens (so 200,000 aliased
 * `__typename` or a nesting 5,000 deep is refused before it is even a document); validation refuses
 * documents deeper than MAX_DEPTH or with more than MAX_ALIASES aliases.
 *
 * Then, before execution, the nodes the request may return are estimated as GitHub's GraphQL API
 * does: each list field multiplies what it contains by its `first` (paged fields) or by an assumed
 * size (plain lists), through every level of nesting. A request estimated above MAX_NODES is refused
 * with a 400 naming its estimate; otherwise it is charged against the same rate limit REST uses the
 * greater of its root fields (50 aliased `search` fields cost 50) and one point per NODES_PER_POINT
 * nodes. Assumed sizes can be wrong (a KB may hold 100,000 documents), so execution also counts the
 * nodes actually returned and stops at MAX_NODES, and a result larger than MAX_RESPONSE_BYTES is
 * replaced by an error. Requests without an API key (introspection) are charged to the client's IP.
 */
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import {
  defaultFieldResolver,
  getNamedType,
  getNullableType,
  GraphQLError,
  isListType,
  isObjectType,
  isAbstractType,
  Kind,
  valueFromAST,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { MAX_DOCUMENT_PAGE } from '../services/documents/list-documents';
import type { Plugin } from 'graphql-yoga';
import { AppError, ERROR_CODES, toAppError } from '../errors';
import { assertWithinReadBudget, READ_BUDGET_BYTES, readPoints, ROW_BYTES } from '../http/read-cost';

export const GRAPHQL_LIMITS = {
  maxTokens: 2_000,
  maxDepth: 12,
  maxAliases: 15,
  /** Root fields per request; with the alias limit this bounds the work one request can ask for. */
  maxCost: 30,
  /** Nodes (list items of object type) one request may return, estimated before and counted during execution. */
  maxNodes: 10_000,
  /** Rate-limit points per this many estimated nodes (when more than the root fields). */
  nodesPerPoint: 100,
  /**
   * The serialized result; beyond it the client gets an error instead of the data. The read budget
   * (src/http/read-cost.ts) refuses most such reads before they run; this catches an estimate that
   * was wrong (chunks far longer than the organisation's average).
   */
  maxResponseBytes: READ_BUDGET_BYTES,
} as const;

/** Paged fields: the largest `first` each accepts (the services' own maxima). */
const PAGED_MAX: Record<string, number> = {
  'Document.chunks': 200,
  'KnowledgeBase.documentPage': MAX_DOCUMENT_PAGE,
  'Query.conversations': 100,
};
/** What an unpaged list is assumed to hold in the estimate (execution counts the real number). */
const ASSUMED_SIZE: Record<string, number> = {
  'Query.knowledgeBases': 10,
  'KnowledgeBase.documents': 50,
  'Query.apiKeys': 10,
  'Query.chatMessages': 50,
  'Subscription.documentUpdates': 50,
  'UploadBatch.documents': 100,
  'UploadBatch.files': 100,
};
const DEFAULT_LIST_SIZE = 10;

/**
 * The nodes an operation may return, before execution. Throws invalid_input for a `first` out of
 * its range, so the error names the argument the client wrote.
 */
export function estimateNodes(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null, variables?: Record<string, unknown> | null): number {
  return estimateRead(schema, document, operationName, variables).nodes;
}

/** Text fields as long as the organisation's chunks; any other leaf is assumed LEAF_BYTES. */
const TEXT_FIELDS = new Set(['Chunk.text']);
const LEAF_BYTES = 24;

/**
 * The nodes an operation may return and the bytes it may read: each list's items times their
 * selected leaves, a chunk's text at `chunkChars` (the average of the organisation's longest-chunked KB, src/services/documents/text-size.ts).
 */
export function estimateRead(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
  variables?: Record<string, unknown> | null,
  chunkChars = 1000,
): { nodes: number; bytes: number } {
  let bytes = 0;
  const leafBytes = (type: GraphQLCompositeType, set: SelectionSetNode): number => {
    if (!isObjectType(type)) return ROW_BYTES;
    let n = 0;
    for (const s of set.selections) {
      if (s.kind !== Kind.FIELD || s.selectionSet) continue;
      n += TEXT_FIELDS.has(`${type.name}.${s.name.value}`) ? chunkChars : LEAF_BYTES;
    }
    return n;
  };
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operations.find((o) => !operationName || o.name?.value === operationName) ?? operations[0];
  if (!operation) return { nodes: 0, bytes: 0 };
  const root = operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  if (!root) return { nodes: 0, bytes: 0 };
  const vars = variables ?? {};

  const visit = (type: GraphQLCompositeType, set: SelectionSetNode, multiplier: number, pageSize: number | null): number => {
    let nodes = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.INLINE_FRAGMENT) {
        const cond = s.typeCondition ? schema.getType(s.typeCondition.name.value) : type;
        if (cond && (isObjectType(cond) || isAbstractType(cond))) nodes += visit(cond, s.selectionSet, multiplier, pageSize);
        continue;
      }
      if (s.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(s.name.value);
        const cond = fragment && schema.getType(fragment.typeCondition.name.value);
        if (fragment && cond && (isObjectType(cond) || isAbstractType(cond))) nodes += visit(cond, fragment.selectionSet, multiplier, pageSize);
        continue;
      }
      if (!s.selectionSet || isAbstractType(type)) continue;
      const def = type.getFields()[s.name.value];
      if (!def) continue;
      const key = `${type.name}.${def.name}`;
      const inner = getNamedType(def.type);
      if (!isObjectType(inner) && !isAbstractType(inner)) continue;
      const firstArg = def.args.find((a) => a.name === 'first');
      if (firstArg) {
        const node = s.arguments?.find((a) => a.name.value === 'first');
        const raw = node ? valueFromAST(node.value, firstArg.type, vars) : firstArg.defaultValue;
        const max = PAGED_MAX[key] ?? 100;
        const first = raw === undefined || raw === null ? (firstArg.defaultValue as number | undefined) ?? max : Number(raw);
        if (!Number.isInteger(first) || first < 1 || first > max) {
          throw new AppError('invalid_input', `"first" on ${key} must be between 1 and ${max}`, { field: 'first' });
        }
        nodes += visit(inner, s.selectionSet, multiplier, first);
      } else if (isListType(getNullableType(def.type))) {
        const size = pageSize ?? ASSUMED_SIZE[key] ?? DEFAULT_LIST_SIZE;
        bytes += multiplier * size * leafBytes(inner, s.selectionSet);
        nodes += multiplier * size + visit(inner, s.selectionSet, multiplier * size, null);
      } else {
        nodes += visit(inner, s.selectionSet, multiplier, null);
      }
    }
    return nodes;
  };
  const nodes = visit(root, operation.selectionSet, 1, null);
  return { nodes, bytes };
}

/** The nodes a request returns, counted as list fields resolve; throws once past the ceiling. */
export type NodeBudget = { spend(n: number): void };

export function createNodeBudget(limit: number = GRAPHQL_LIMITS.maxNodes): NodeBudget {
  let used = 0;
  return {
    spend(n) {
      used += n;
      if (used > limit) {
        throw new AppError('invalid_input', `The request returns more than ${limit} nodes; ask for fewer items with "first" or split it into pages`);
      }
    },
  };
}

const counted = new WeakSet<GraphQLSchema>();
/**
 * Wraps every resolver of a list of objects so the items it returns are counted against the
 * request's NodeBudget (`context.nodeBudget`); contexts without one (direct schema calls) are not counted.
 */
export function countListNodes(schema: GraphQLSchema): void {
  if (counted.has(schema)) return;
  counted.add(schema);
  for (const type of Object.values(schema.getTypeMap())) {
    // A subscription's root resolves once per event for as long as the stream lives: not one request's return.
    if (!isObjectType(type) || type.name.startsWith('__') || type === schema.getSubscriptionType()) continue;
    for (const field of Object.values(type.getFields())) {
      if (!isListType(getNullableType(field.type))) continue;
      const inner = getNamedType(field.type);
      if (!isObjectType(inner) && !isAbstractType(inner)) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      const spend = (ctx: unknown, value: unknown) => {
        const budget = (ctx as { nodeBudget?: NodeBudget } | null)?.nodeBudget;
        if (budget && Array.isArray(value)) budget.spend(value.length);
        return value;
      };
      field.resolve = (source, args, ctx, info) => {
        const value = resolve(source, args, ctx, info);
        return value instanceof Promise ? value.then((v) => spend(ctx, v)) : spend(ctx, value);
      };
    }
  }
}

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
  nodeBudget?: NodeBudget;
  /** Charges the request's cost: to its API key when it has one, otherwise to its IP. */
  chargeCost: (cost: number) => Promise<void>;
  /** The caller's average chunk text length (a default for keyless requests). */
  chunkChars: () => Promise<number>;
};

function costPlugin(): Plugin<CostContext> {
  const charge = async (
    args: { schema: GraphQLSchema; document: DocumentNode; operationName?: string | null | undefined; variableValues?: unknown; contextValue: CostContext },
    stop: (result: { errors: GraphQLError[] }) => void,
  ) => {
    const rootFields = operationCost(args.document, args.operationName);
    let charged = false;
    try {
      if (rootFields > GRAPHQL_LIMITS.maxCost) {
        throw new AppError('invalid_input', `The request asks for ${rootFields} root fields; at most ${GRAPHQL_LIMITS.maxCost} are allowed in one request`);
      }
      const chunkChars = await args.contextValue.chunkChars();
      const { nodes, bytes } = estimateRead(args.schema, args.document, args.operationName, args.variableValues as Record<string, unknown> | null, chunkChars);
      if (nodes > GRAPHQL_LIMITS.maxNodes) {
        throw new AppError(
          'invalid_input',
          `The request may return ${nodes.toLocaleString('en')} nodes (each list's "first" or assumed size, multiplied through its nesting); at most ${GRAPHQL_LIMITS.maxNodes.toLocaleString('en')} are allowed in one request`,
        );
      }
      // Priced by the bytes it will read too: 10,000 chunk texts pass the node ceiling and read 12 MB.
      assertWithinReadBudget(bytes, 'each list\'s "first" or assumed size, multiplied through its nesting, chunk text at the average length of this organisation\'s longest-chunked KB');
      charged = true;
      await args.contextValue.chargeCost(Math.max(rootFields, Math.ceil(nodes / GRAPHQL_LIMITS.nodesPerPoint), readPoints(bytes)));
    } catch (err) {
      let error = toAppError(err);
      // A refused read still costs a point, as every REST and tRPC call does: uncharged, one key sent
      // 2,000 refused reads in 30 s, never limited.
      if (!charged) {
        try {
          await args.contextValue.chargeCost(1);
        } catch (chargeErr) {
          error = toAppError(chargeErr);
        }
      }
      stop({ errors: [appGraphQLError(error)] });
    }
  };
  const bound = (result: unknown, setResult: (r: never) => void) => {
    // Streams (subscriptions, incremental delivery) are bounded per event by the node budget.
    if (!result || typeof result !== 'object' || Symbol.asyncIterator in result) return;
    const bytes = Buffer.byteLength(JSON.stringify(result));
    if (bytes > GRAPHQL_LIMITS.maxResponseBytes) {
      const err = new AppError('invalid_input', `The response would be ${Math.round(bytes / 1048576)} MB; at most ${GRAPHQL_LIMITS.maxResponseBytes / 1048576} MB are returned in one request: ask for fewer items or fields`);
      setResult({ errors: [appGraphQLError(err)] } as never);
    }
  };
  return {
    onExecute: async ({ args, setResultAndStopExecution }) => {
      await charge(args, setResultAndStopExecution);
      return { onExecuteDone: ({ result, setResult }) => bound(result, setResult as never) };
    },
    // Subscriptions (the streamed chat) do not pass through onExecute: charged the same, once per request.
    onSubscribe: ({ args, setResultAndStopExecution }) => charge(args, setResultAndStopExecution),
  };
}

/**
 * A document that fails validation (an unknown field, a missing argument) is the request's fault
 * exactly like a syntax error: both answer 400 invalid_input whatever the Accept header (yoga sent
 * 200 for validation errors under application/json).
 */
function validationStatusPlugin(): Plugin<CostContext> {
  return {
    onValidate: () => ({ valid, result, setResult }) => {
      if (valid) return;
      setResult(
        result.map(
          (e) =>
            new GraphQLError(e.message, {
              nodes: e.nodes,
              source: e.source,
              positions: e.positions,
              originalError: e.originalError,
              // spec: false, or yoga's own validation plugin (which runs last) marks it spec-only and application/json gets 200.
              extensions: { ...e.extensions, code: ERROR_CODES.invalid_input.graphql, app_code: 'invalid_input', http: { status: 400, spec: false } },
            }),
        ),
      );
    },
  };
}

export function graphqlLimitPlugins(): Plugin<CostContext>[] {
  const exposeLimits = true;
  return [
    maxTokensPlugin({ n: GRAPHQL_LIMITS.maxTokens, exposeLimits }) as Plugin<CostContext>,
    maxDepthPlugin({ n: GRAPHQL_LIMITS.maxDepth, exposeLimits, flattenFragments: true }) as Plugin<CostContext>,
    maxAliasesPlugin({ n: GRAPHQL_LIMITS.maxAliases, exposeLimits }) as Plugin<CostContext>,
    validationStatusPlugin(),
    costPlugin(),
  ];
}
