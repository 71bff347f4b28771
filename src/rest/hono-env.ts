import type { ServiceContext } from '../context';
import type { Logger } from '../logger';

export type HonoEnv = {
  Variables: {
    requestId: string;
    /** Date.now() when the request arrived. */
    receivedAt: number;
    logger: Logger;
    /** Set by the API-key middleware on authenticated routes. */
    svc: ServiceContext;
  };
};
