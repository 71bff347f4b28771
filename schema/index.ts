/** Assembles the GraphQL schema: importing a type module registers its types and fields. */
import { builder } from './builder';
import './answers';
import './document';
import './knowledge-base';
import './organization';

export const schema = builder.toSchema({ sortSchema: true });
