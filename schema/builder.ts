/**
 * The Pothos schema builder. Resolvers receive a lazily authenticated context: the API key is
 * checked once per request, the first time a resolver needs the caller's organisation.
 */
import SchemaBuilder from '@pothos/core';
import type { ServiceContext } from '../src/context';
import type { HttpDeps } from '../src/http/authenticate-request';

export type GraphQLContext = {
  requestId: string;
  deps: HttpDeps;
  /** The caller's address as rate limits key it. */
  clientIp: string;
  request: Request;
  /** Adds a Set-Cookie header to the HTTP response (dashboard sign-in and sign-out). */
  setCookie: (cookie: string) => void;
  /** Authenticates the request (memoised); throws AppError('unauthorized') without a valid key. */
  auth: () => Promise<ServiceContext>;
  /** Charges the request's cost to its API key (or, without one, its IP); see src/graphql/limits.ts. */
  chargeCost: (points: number) => Promise<void>;
  /** The caller's average chunk text length, for pricing reads by bytes (src/graphql/limits.ts). */
  chunkChars: () => Promise<number>;
  /** Makes the ServiceContext auth() returns stop its database work when the client goes away (queries only, src/graphql/yoga.ts). */
  stopWithClient: () => void;
  /** Counts the nodes the request returns against its ceiling (src/graphql/limits.ts). */
  nodeBudget?: { spend(n: number): void };
};

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: { DateTime: { Input: string; Output: string }; File: { Input: File; Output: never } };
}>({ defaultFieldNullability: false });

builder.scalarType('DateTime', {
  description: 'ISO 8601 timestamp in UTC',
  serialize: (v) => v,
  parseValue: (v) => String(v),
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});

builder.scalarType('File', {
  description: 'A file sent with the GraphQL multipart request spec',
  serialize: () => {
    throw new Error('File is an input-only scalar');
  },
});
