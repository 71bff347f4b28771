/**
 * Grounded answering, as a stream of events that every transport consumes the same way: REST's
 * JSON response is this stream collected, its SSE response is this stream forwarded. The model is
 * whichever the registry chose (OpenAI or the offline answerer); both speak the AI SDK protocol,
 * so this code path is identical online and offline.
 */
import { streamText } from 'ai';
import type { AnsweringDeps } from './deps';
import { AppError } from '../errors';
import { buildAnswerPrompt, extractCitedMarkers, isRefusalText, notFoundAnswer, promptTokens, type AnswerPassage, type ChatTurn } from '../ai/prompts';
import { OFFLINE_PROVIDER } from './offline/model';
import { answerFromPassages } from './offline/answerer';
import { decideAnswerGate, type AnswerGate } from './answer-gate';
import { analyseQuestion } from './analyse-question';
import type { QuestionAnalysis } from './question';
import { annotationCitation, toCitation, type Citation, type MatchedAnnotation } from './citations';
import type { Retrieval, RetrievedChunk } from './retrieval/retrieve';
import { toAnswerPassages } from './answer-passages';

/**
 * `sources`: the retrieved passages, numbered as the answer's [n] markers (on a refusal, the closest
 * ones, each `used: false`), with the gate's decision for the Sandbox. `done.citations`: the passages
 * the answer cites (none on a refusal); `done.closest`: on a refusal, what was retrieved nonetheless
 * (clients are sent `responseCitations(done)`); `done.gate`: why the passages were or were not answered from.
 */

/**
 * The gate's decision as the Sandbox shows it, as is (not a second gate): `answered` false means the
 * refusal gate declined, `reason` says which check, and `passages` are the retrieved chunks with the
 * very scores their citations carry.
 */
export type AnswerDecision = {
  answered: boolean;
  reason: 'relevant' | 'no_passages' | 'nothing_relevant' | 'not_covered' | 'annotation';
  passages: Array<Citation & { lexical: number; dense: number; text: string }>;
};

export type AnswerEvent =
  | { type: 'sources'; citations: Citation[]; decision?: AnswerDecision }
  | { type: 'delta'; text: string }
  /**
   * `refused`: this path decided not to answer (its gate, or the model's own "not found"), the flag
   * Conversations and Unanswered questions read. `message_id`: the stored answer, when a chat stored
   * it (the widget rates it by this id).
   */
  | { type: 'done'; answer: string; citations: Citation[]; closest: Citation[]; refused: boolean; gate: AnswerGate; message_id?: string };

type DoneEvent = Extract<AnswerEvent, { type: 'done' }>;

/**
 * The citations a client is sent with a finished answer: the ones the answer used, or, when it was
 * refused, the closest retrieved passages marked `used: false`, so people (and clients measuring
 * retrieval) see what was found. Every transport sends this.
 */
export function responseCitations(done: Pick<DoneEvent, 'citations' | 'closest' | 'refused'>): Citation[] {
  return done.refused ? done.closest : done.citations;
}


/** The retrieved chunks as the answer prompt numbers them, each with where it comes from. */
export function answerPassages(retrieval: Retrieval): AnswerPassage[] {
  return toAnswerPassages(retrieval.chunks);
}

const DECISION_REASON: Record<AnswerGate['reason'], AnswerDecision['reason']> = {
  answered: 'relevant',
  no_passages: 'no_passages',
  not_confident: 'nothing_relevant',
  not_covered: 'not_covered',
  model_refused: 'relevant',
  annotation: 'annotation',
};

function decisionOf(gate: AnswerGate, retrieval: Retrieval): AnswerDecision {
  const passages = retrieval.chunks.map((c, i) => ({ ...toCitation(c, i + 1, gate.pass), lexical: c.lexical, dense: c.dense, text: c.text }));
  return { answered: gate.pass, reason: DECISION_REASON[gate.reason], passages };
}

/**
 * The question's analysis by its text, each made once: the retrieval's own when retrieval searched
 * that text (a chat searches its follow-up condensed to stand alone, which the offline answer reads).
 */
function questionAnalyses(retrieval: Retrieval): (text: string) => QuestionAnalysis {
  const made = new Map<string, QuestionAnalysis>(retrieval.question ? [[retrieval.question.text, retrieval.question]] : []);
  return (text) => {
    let analysis = made.get(text);
    if (!analysis) made.set(text, (analysis = analyseQuestion(text)));
    return analysis;
  };
}

function gateFor(
  deps: Pick<AnsweringDeps, 'models'>,
  input: { question: string; retrieval: Retrieval; standalone?: string | undefined },
  analysisOf: (text: string) => QuestionAnalysis,
): AnswerGate {
  const offline = deps.models.answerModel.provider === OFFLINE_PROVIDER;
  const question = offline && input.standalone ? input.standalone : input.question;
  return decideAnswerGate({ question: analysisOf(question), retrieval: input.retrieval, passages: answerPassages(input.retrieval), offline });
}

/**
 * The retrieval an answer is made from, with its gate: `retrieval` itself, or for the offline
 * answerer, when the order retrieval shows leaves it nothing to answer from (its gate or the answerer
 * itself refuses), the passages of the top k as ranked (retrieve.ts `ranked`) that answer, followed
 * by the order shown, as many as k; failing that the ranking itself. When neither answers, the
 * refusal shows the order retrieval shows. The passages sent with the answer are the ones it read.
 */
function readAndGate(deps: Pick<AnsweringDeps, 'models'>, input: { question: string; retrieval: Retrieval; standalone?: string | undefined }): { retrieval: Retrieval; gate: AnswerGate } {
  const { retrieval } = input;
  const analysisOf = questionAnalyses(retrieval);
  const gate = gateFor(deps, input, analysisOf);
  if (!retrieval.ranked || deps.models.answerModel.provider !== OFFLINE_PROVIDER) return { retrieval, gate };
  const question = analysisOf(input.standalone ?? input.question);
  const answers = (r: Retrieval, g: AnswerGate) => g.pass && !answerFromPassages(question, answerPassages(r)).refused;
  if (answers(retrieval, gate)) return { retrieval, gate };
  const ranked = { ...retrieval, chunks: retrieval.ranked, ranked: undefined };
  const rankedGate = gateFor(deps, { ...input, retrieval: ranked }, analysisOf);
  if (!rankedGate.pass) return { retrieval, gate };
  const answer = answerFromPassages(question, answerPassages(ranked));
  if (answer.refused) return { retrieval, gate };
  // The passages that answer, then the rest of what retrieval shows (a figure page among them).
  const quoted = ranked.chunks.filter((_, i) => answer.markers.includes(i + 1));
  const rest = retrieval.chunks.filter((c) => !quoted.some((q) => q.chunk_id === c.chunk_id));
  const mixed = { ...ranked, chunks: [...quoted, ...rest].slice(0, Math.max(retrieval.chunks.length, quoted.length)) };
  const mixedGate = gateFor(deps, { ...input, retrieval: mixed }, analysisOf);
  if (answers(mixed, mixedGate)) return { retrieval: mixed, gate: mixedGate };
  return { retrieval: ranked, gate: rankedGate };
}

/**
 * The whole prompt a language model is sent, in estimated tokens (`promptTokens`): instructions,
 * passages, the conversation and the question. The shown passages always go; the ranking's next
 * ones are added while the prompt stays within this, so a long conversation leaves room for fewer.
 */
export const PROMPT_TOKENS = 6_000;

/**
 * The passages a language model reads: those shown (the top k), then `following` in ranked order
 * while `tokensOf` the prompt they make stays within `budget`.
 */
export function promptChunks(retrieval: Retrieval, tokensOf: (chunks: RetrievedChunk[]) => number, budget = PROMPT_TOKENS): RetrievedChunk[] {
  const chunks = [...retrieval.chunks];
  for (const c of retrieval.following ?? []) {
    if (tokensOf([...chunks, c]) > budget) break;
    chunks.push(c);
  }
  return chunks;
}

/** The retrieval an answer is made from (readAndGate), for views that show its passages. */
export function readRetrieval(deps: Pick<AnsweringDeps, 'models'>, input: { question: string; retrieval: Retrieval; standalone?: string | undefined }): Retrieval {
  return readAndGate(deps, input).retrieval;
}

/**
 * The refusal gate (answer-gate.ts) as the Sandbox's retrieval view reads it: the same function the
 * answer stream decides through, so the two cannot disagree.
 */
export function decideAnswer(
  deps: Pick<AnsweringDeps, 'models'>,
  input: { question: string; retrieval: Retrieval; standalone?: string | undefined },
): AnswerDecision {
  const { retrieval, gate } = readAndGate(deps, input);
  return decisionOf(gate, retrieval);
}

export async function* answerStream(
  deps: Pick<AnsweringDeps, 'models'>,
  input: {
    question: string;
    retrieval: Retrieval;
    history?: ChatTurn[];
    /** The chat follow-up rewritten to stand alone (condense); the extractive answerer cannot read history. */
    standalone?: string;
    signal?: AbortSignal;
    /** A curated answer that matched (answer-sources.ts): it is the answer, cited as its one source. */
    annotation?: MatchedAnnotation | null;
  },
): AsyncGenerator<AnswerEvent> {
  if (input.annotation) {
    yield* curatedAnswer(input.annotation);
    return;
  }
  const { retrieval, gate } = readAndGate(deps, input);
  const offline = deps.models.answerModel.provider === OFFLINE_PROVIDER;
  const question = offline && input.standalone ? input.standalone : input.question;
  const passages = answerPassages(retrieval);
  const decision = decisionOf(gate, retrieval);
  if (!gate.pass) {
    // What retrieval found, none of it used.
    const closest = retrieval.chunks.map((c, i) => toCitation(c, i + 1, false));
    yield { type: 'sources', citations: closest, decision };
    // The refusal speaks the question's language.
    const refusal = notFoundAnswer(retrieval.language);
    yield { type: 'delta', text: refusal };
    yield { type: 'done', answer: refusal, citations: [], closest, refused: true, gate };
    return;
  }

  const sources = retrieval.chunks.map((c, i) => toCitation(c, i + 1));
  yield { type: 'sources', citations: sources, decision };

  // A language model reads beyond the top k, within its prompt budget; the extractive answerer
  // quotes only what is shown. Markers past k cite passages the `sources` event did not list.
  const promptOf = (chunks: RetrievedChunk[]) => buildAnswerPrompt({ question, history: input.history, passages: toAnswerPassages(chunks) });
  const read = offline ? retrieval.chunks : promptChunks(retrieval, (chunks) => promptTokens(promptOf(chunks)));
  const citable = offline ? sources : read.map((c, i) => toCitation(c, i + 1));
  const { system, messages } = offline ? buildAnswerPrompt({ question, history: input.history, passages }) : promptOf(read);
  // streamText reports a failed request (e.g. a 429 before the first token) through onError and
  // simply ends the text stream; keep the error and raise it so callers see a failure, not "".
  let failure: unknown = null;
  const result = streamText({
    model: deps.models.answerModel,
    system,
    messages,
    temperature: 0,
    maxRetries: 1,
    abortSignal: input.signal,
    onError: ({ error }) => {
      failure ??= error;
    },
  });
  let answer = '';
  for await (const text of result.textStream) {
    answer += text;
    yield { type: 'delta', text };
  }
  if (failure) {
    const err = new AppError('unavailable', 'The language model did not answer; try again shortly');
    (err as { cause?: unknown }).cause = failure;
    throw err;
  }
  answer = answer.trim();
  if (isRefusalText(answer)) {
    const closest = sources.map((c) => ({ ...c, used: false }));
    yield { type: 'done', answer: notFoundAnswer(retrieval.language), citations: [], closest, refused: true, gate: { ...gate, pass: false, reason: 'model_refused' } };
    return;
  }
  const cited = new Set(extractCitedMarkers(answer));
  const used = citable.filter((s) => cited.has(s.marker));
  // A model that forgot its markers still answered from the passages: credit the best one.
  yield { type: 'done', answer, citations: used.length > 0 ? used : sources.slice(0, 1), closest: [], refused: false, gate };
}

/** A curated answer, as the same events: its text whole, its one citation marked `annotation`. */
async function* curatedAnswer(match: MatchedAnnotation): AsyncGenerator<AnswerEvent> {
  const citation = annotationCitation(match.annotation, match.similarity);
  const gate: AnswerGate = { pass: true, reason: 'annotation', confident: true, support: null, minSupport: null, fullCoverage: null, namedCoverage: null };
  const decision: AnswerDecision = { answered: true, reason: 'annotation', passages: [] };
  yield { type: 'sources', citations: [citation], decision };
  yield { type: 'delta', text: match.annotation.answer };
  yield { type: 'done', answer: match.annotation.answer, citations: [citation], closest: [], refused: false, gate };
}

/**
 * The finished answer, collected: `citations` are the ones the answer used (none when refused, which
 * is how the benches count refusals); `closest` what a refusal retrieved nonetheless.
 */
export async function collectAnswer(
  events: AsyncIterable<AnswerEvent>,
): Promise<{ answer: string; citations: Citation[]; closest: Citation[]; refused: boolean; gate: AnswerGate }> {
  for await (const e of events) if (e.type === 'done') return { answer: e.answer, citations: e.citations, closest: e.closest, refused: e.refused, gate: e.gate };
  throw new Error('answer stream ended without a done event');
}

/** The non-streamed search response every transport sends: the spec's { answer, citations }, plus `refused`. */
export async function collectSearchResponse(events: AsyncIterable<AnswerEvent>): Promise<{ answer: string; citations: Citation[]; refused: boolean }> {
  const done = await collectAnswer(events);
  return { answer: done.answer, citations: responseCitations(done), refused: done.refused };
}
