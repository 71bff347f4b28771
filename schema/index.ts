/** Assembles the GraphQL schema: importing a type module registers its types and fields. */
import { builder } from './builder';
import './answers';
import './document';
import './knowledge-base';
import './organization';
import './admin-session';
import './api-key';
import './conversation';
import './document-page';
import './usage';
import './chat-stream';
import './document-updates';
import './insights';
import './voice-settings';
import './evals';
import './audit-log';
import './people';
import './annotation';

export const schema = builder.toSchema({ sortSchema: true });
