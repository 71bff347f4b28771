import type { ServiceContext } from '../context';
import type { Logger } from '../logger';

export type HonoEnv = {
  Variables: {
    requestId: string;
    logger: Logger;
    /** Set by the API-key middleware on authenticated routes. */
    svc: ServiceContext;
  };
};
