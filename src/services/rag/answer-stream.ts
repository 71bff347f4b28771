/**
 * Grounded answering, as a stream of events that every transport consumes the same way: REST's
 * JSON response is this stream collected, its SSE response is this stream forwarded. The model is
 * whichever the registry chose (OpenAI or the offline answerer); both speak the AI SDK protocol,
 * so this code path is identical online and offline.
 */
import { streamText } from 'ai';
import type { AppDeps } from '../../context';
import { AppError } from '../../errors';
import { buildAnswerPrompt, extractCitedMarkers, NOT_FOUND_ANSWER, passageSource, type AnswerPassage, type ChatTurn } from '../../ai/prompts';
import { titleFromFilename } from '../../ingest/document-title';
import { OFFLINE_PROVIDER } from '../../ai/offline/model';
import { passagesCoverQuestion } from '../../ai/offline/support';
import { toCitation, type Citation } from './citations';
import type { Retrieval } from './retrieve';

export type AnswerEvent =
  | { type: 'sources'; citations: Citation[] }
  | { type: 'delta'; text: string }
  /**
   * `refused`: this path decided not to answer (its gate, or the model's own "not found"), the
   * flag Conversations and Unanswered questions read. `message_id`: the stored answer, when a chat
   * stored it (the widget rates it by this id).
   */
  | { type: 'done'; answer: string; citations: Citation[]; refused: boolean; message_id?: string };

const isRefusal = (text: string) => text.trim().replace(/\s+/g, ' ').startsWith(NOT_FOUND_ANSWER.slice(0, 30));

/** The retrieved chunks as the answer prompt numbers them, each with where it comes from. */
export function answerPassages(retrieval: Retrieval): AnswerPassage[] {
  return retrieval.chunks.map((c, i) => ({
    marker: i + 1,
    text: c.text,
    document: c.doc_id,
    source: passageSource({
      name: c.url ?? c.filename,
      title: c.title && c.title !== titleFromFilename(c.filename) ? c.title : null,
      page: c.page,
      heading: c.heading_path.at(-1),
    }),
  }));
}

export async function* answerStream(
  deps: Pick<AppDeps, 'models'>,
  input: {
    question: string;
    retrieval: Retrieval;
    history?: ChatTurn[];
    /** The chat follow-up rewritten to stand alone (condense); the extractive answerer cannot read history. */
    standalone?: string;
    signal?: AbortSignal;
  },
): AsyncGenerator<AnswerEvent> {
  const { retrieval } = input;
  const offline = deps.models.answerModel.provider === OFFLINE_PROVIDER;
  const question = offline && input.standalone ? input.standalone : input.question;
  const passages = answerPassages(retrieval);
  // The extractive offline answerer matches words, so it is told no when no passage holds the
  // question's content; an LLM judges that from the passages itself.
  const covered =
    !offline ||
    passagesCoverQuestion(
      question,
      passages.map((p, i) => ({ ...p, dense: retrieval.chunks[i]!.dense, lexical: retrieval.chunks[i]!.lexical })),
      retrieval.lexicalCeiling,
    );
  if (!retrieval.confident || retrieval.chunks.length === 0 || !covered) {
    yield { type: 'sources', citations: [] };
    yield { type: 'delta', text: NOT_FOUND_ANSWER };
    yield { type: 'done', answer: NOT_FOUND_ANSWER, citations: [], refused: true };
    return;
  }

  const sources = retrieval.chunks.map((c, i) => toCitation(c, i + 1));
  yield { type: 'sources', citations: sources };

  const { system, messages } = buildAnswerPrompt({
    question,
    history: input.history,
    passages,
  });
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
  if (isRefusal(answer)) {
    yield { type: 'done', answer: NOT_FOUND_ANSWER, citations: [], refused: true };
    return;
  }
  const cited = new Set(extractCitedMarkers(answer));
  const used = sources.filter((s) => cited.has(s.marker));
  // A model that forgot its markers still answered from the passages: credit the best one.
  yield { type: 'done', answer, citations: used.length > 0 ? used : sources.slice(0, 1), refused: false };
}

/** The non-streamed response: the same events, collected. */
export async function collectAnswer(events: AsyncIterable<AnswerEvent>): Promise<{ answer: string; citations: Citation[] }> {
  for await (const e of events) if (e.type === 'done') return { answer: e.answer, citations: e.citations };
  throw new Error('answer stream ended without a done event');
}
