/**
 * Every endpoint the abuse suite attacks, read from the running service itself, never listed by
 * hand, so a route added tomorrow is attacked tomorrow: REST from /api/openapi.json, GraphQL from
 * the schema the server introspects to (every root field of Query, Mutation and Subscription), tRPC
 * from the router's own procedure table.
 */
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isCompositeType,
  type GraphQLField,
  type IntrospectionQuery,
} from 'graphql';
import { appRouter } from '../../src/trpc/router';

export type RestEndpoint = { transport: 'rest'; name: string; method: string; path: string; fields: string[]; multipart: boolean };
export type GraphQLEndpoint = { transport: 'graphql'; name: string; operation: 'query' | 'mutation' | 'subscription'; field: GraphQLField<unknown, unknown> };
export type TrpcEndpoint = { transport: 'trpc'; name: string; path: string; type: 'query' | 'mutation' | 'subscription' };
export type Endpoint = RestEndpoint | GraphQLEndpoint | TrpcEndpoint;

type JsonSchema = { $ref?: string; properties?: Record<string, JsonSchema>; allOf?: JsonSchema[]; anyOf?: JsonSchema[]; oneOf?: JsonSchema[] };
type OpenApiDoc = {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
  components?: { schemas?: Record<string, JsonSchema> };
};

/** Property names of a request body's schema, through $ref and combinators. */
function propertyNames(schema: JsonSchema | undefined, doc: OpenApiDoc, seen = new Set<string>()): string[] {
  if (!schema) return [];
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop()!;
    if (seen.has(name)) return [];
    seen.add(name);
    return propertyNames(doc.components?.schemas?.[name], doc, seen);
  }
  return [
    ...Object.keys(schema.properties ?? {}),
    ...[...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap((s) => propertyNames(s, doc, seen)),
  ];
}

const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

export async function restEndpoints(url: string): Promise<RestEndpoint[]> {
  const doc = (await (await fetch(`${url}/api/openapi.json`)).json()) as OpenApiDoc;
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, op]): RestEndpoint => {
        const content = op.requestBody?.content ?? {};
        return {
          transport: 'rest',
          name: `${method.toUpperCase()} ${path}`,
          method: method.toUpperCase(),
          path,
          fields: [...new Set(Object.values(content).flatMap((c) => propertyNames(c.schema, doc)))],
          multipart: Object.keys(content).some((t) => t.startsWith('multipart/')),
        };
      }),
  );
}

export async function graphqlEndpoints(url: string, key: string): Promise<GraphQLEndpoint[]> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ query: getIntrospectionQuery() }),
  });
  const { data } = (await res.json()) as { data: IntrospectionQuery };
  const schema = buildClientSchema(data);
  const roots = [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
    ['subscription', schema.getSubscriptionType()],
  ] as const;
  return roots.flatMap(([operation, type]) =>
    Object.values(type?.getFields() ?? {}).map((field): GraphQLEndpoint => ({ transport: 'graphql', name: `${operation} ${field.name}`, operation, field })),
  );
}

export function trpcEndpoints(): TrpcEndpoint[] {
  return Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: TrpcEndpoint['type'] } }>).map(([path, p]) => ({
    transport: 'trpc',
    name: `tRPC ${path}`,
    path,
    type: p._def.type,
  }));
}

export async function discoverEndpoints(url: string, key: string): Promise<Endpoint[]> {
  return [...(await restEndpoints(url)), ...(await graphqlEndpoints(url, key)), ...trpcEndpoints()];
}

/** The GraphQL document that calls one root field with every argument as a variable. */
export function graphqlDocument(e: GraphQLEndpoint): string {
  const args = e.field.args;
  const vars = args.length ? `(${args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ')})` : '';
  const call = args.length ? `(${args.map((a) => `${a.name}: $${a.name}`).join(', ')})` : '';
  const selection = isCompositeType(getNamedType(e.field.type)) ? ' { __typename }' : '';
  return `${e.operation} Abuse${vars} { ${e.field.name}${call}${selection} }`;
}
