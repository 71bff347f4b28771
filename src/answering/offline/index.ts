/** The local offline providers: an extractive answerer and a query condenser behind one AI SDK language model. */
export { createOfflineModel, OfflineLanguageModel, wordChunks, type OfflineModelOptions, type OfflineTask } from './model';
export {
  answerFromPassages,
  detectQuestionType,
  type AnswerOptions,
  type OfflineAnswer,
  type QuestionType,
  type ScoredSentence,
} from './answerer';
export { condenseQueryOffline, extractMentions } from './condense-query';
export { extractCitedMarkers } from '../../ai/prompts';
