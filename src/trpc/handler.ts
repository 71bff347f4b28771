import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { HttpDeps } from '../http/authenticate-request';
import { appRouter } from './router';

export function createTrpcHandler(deps: HttpDeps) {
  return (request: Request, requestId: string) =>
    fetchRequestHandler({
      endpoint: '/trpc',
      req: request,
      router: appRouter,
      createContext: () => ({ deps, headers: request.headers, requestId }),
    });
}
