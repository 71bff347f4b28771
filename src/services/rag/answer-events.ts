/**
 * What a transport sends of an answer (src/answering/answer-stream.ts): its events collected into
 * one response or forwarded as they come, and the citations' shape. Transports reach answering
 * only through the services, so the pieces they serialise are handed on here.
 */
export { collectAnswer, collectSearchResponse, responseCitations, type AnswerDecision, type AnswerEvent } from '../../answering/answer-stream';
export { ZCitation, type Citation } from '../../answering/citations';
