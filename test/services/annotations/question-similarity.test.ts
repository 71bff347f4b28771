/**
 * The thresholds questions are compared by (Unanswered grouping, curated-answer matching), held
 * against the offline embedding model on pairs written for the purpose: paraphrases of one question,
 * and different questions about one subject.
 */
import { describe, expect, it } from 'vitest';
import { createLocalEmbeddingProvider } from '../../../src/ai/embeddings';
import { ANNOTATION_MATCH } from '../../../src/services/annotations/match-annotation';
import { GROUP_SIMILARITY } from '../../../src/services/insights/unanswered-questions';
import { cosine } from '../../../src/answering/retrieval/question-vectors';

const PARAPHRASES: Array<[string, string]> = [
  ['Where did the accident happen?', 'What was the location of the accident?'],
  ['What was the weather at the site?', 'How was the weather at the site that day?'],
  ['How do I reset my password?', 'How can I change my password if I forgot it?'],
  ['When does the office open?', 'What time does the office open in the morning?'],
  ['How long is the warranty?', 'What is the warranty period?'],
  ['Who is responsible for the maintenance?', 'Who is in charge of maintenance?'],
  ['How much does shipping cost?', 'What are the shipping fees?'],
  ['How many people were injured?', 'What was the number of injured people?'],
  ['Does the plan include support?', 'Is support included in the plan?'],
];
const DIFFERENT: Array<[string, string]> = [
  ['What was the weather at the site?', 'Where did the accident happen?'],
  ['How do I reset my password?', 'How do I delete my account?'],
  ['When does the office open?', 'Where is the office located?'],
  ['How long is the warranty?', 'How much does the warranty cost?'],
  ['How much does shipping cost?', 'How long does shipping take?'],
  ['What is the maximum load of the crane?', 'Who operated the crane?'],
  ['Where is the nearest exit?', 'When was the building built?'],
  ['What time did the accident happen?', 'Where did the accident happen?'],
  ['How do I install the app?', 'How do I uninstall the app?'],
];

const model = createLocalEmbeddingProvider();
const similarity = async ([a, b]: [string, string]) => {
  const [va, vb] = await model.embedDocuments([a, b]);
  return cosine(va!, vb!);
};

describe('question similarity with the offline model', () => {
  it('a curated answer matches none of the different questions, and close rewordings of its own', async () => {
    for (const pair of DIFFERENT) expect(await similarity(pair), pair.join(' / ')).toBeLessThan(ANNOTATION_MATCH);
    const matched = (await Promise.all(PARAPHRASES.map(similarity))).filter((s) => s >= ANNOTATION_MATCH);
    expect(matched.length).toBeGreaterThanOrEqual(2);
  });

  it('groups most paraphrases, and keeps "weather at the site" apart from "where did the accident happen"', async () => {
    const paraphrases = await Promise.all(PARAPHRASES.map(similarity));
    expect(paraphrases.filter((s) => s >= GROUP_SIMILARITY).length).toBeGreaterThanOrEqual(Math.ceil(PARAPHRASES.length * 0.75));
    const different = await Promise.all(DIFFERENT.map(similarity));
    expect(different[0]).toBeLessThan(GROUP_SIMILARITY);
    expect(different.filter((s) => s < GROUP_SIMILARITY).length).toBeGreaterThan(different.length / 2);
  });
});
