/**
 * The passages sent with an answer (the stream's `sources`, the SSE `citations` event) are the
 * passages the answer was made from. Offline, when the order retrieval shows (figure pages first)
 * leaves the extractive answerer nothing to answer from, it answers from the passages of the top k
 * as ranked that answer, followed by the order shown, and sends those; when neither answers, the
 * refusal shows the order shown.
 */
import { describe, expect, it } from 'vitest';
import { createModelRegistry } from '../../src/ai/providers';
import type { ChunkId, DocumentId } from '../../src/ids';
import { answerStream, collectAnswer, type AnswerEvent } from '../../src/answering/answer-stream';
import type { Retrieval, RetrievedChunk } from '../../src/answering/retrieval/retrieve';

const chunk = (id: string, page: number, text: string, dense = 0.6): RetrievedChunk => ({
  chunk_id: id as ChunkId,
  doc_id: 'doc_policy' as DocumentId,
  filename: 'travel-policy.pdf',
  title: 'Travel policy',
  identity: null,
  source: 'upload',
  text,
  heading_path: [],
  page,
  url: null,
  score: 0.6,
  lexical: 4,
  dense,
});

const prose = chunk('chk_prose', 3, 'Employees travelling abroad are paid a daily meal allowance of 95 francs in Zurich and 80 pounds in London.');
const table = chunk('chk_table', 7, 'Zurich 95 240 35\nGeneva 92 230 35\nOslo 88 210 30', 0.1);
const other = chunk('chk_other', 2, 'Flights are booked through the travel desk in economy class.', 0.3);

async function sent(retrieval: Retrieval, question: string) {
  const events: AnswerEvent[] = [];
  for await (const e of answerStream({ models: createModelRegistry() }, { question, retrieval })) events.push(e);
  const sources = events.find((e): e is Extract<AnswerEvent, { type: 'sources' }> => e.type === 'sources')!.citations;
  return { sources: sources.map((c) => c.chunk_id), done: await collectAnswer((async function* () { yield* events; })()) };
}

describe('the passages an answer reads are the passages it sends', () => {
  const question = 'What is the daily meal allowance in Zurich?';

  it('answers from the order shown when it can, and sends that order', async () => {
    const { sources, done } = await sent({ chunks: [prose, table, other], confident: true, lexicalCeiling: 8, ranked: [prose, other, table] }, question);
    expect(sources).toEqual(['chk_prose', 'chk_table', 'chk_other']);
    expect(done.refused).toBe(false);
    for (const c of done.citations) expect(sources).toContain(c.chunk_id);
  });

  it('answers from the ranking when the order shown leaves nothing to quote, and sends that passage before the order shown', async () => {
    const { sources, done } = await sent({ chunks: [table, other], confident: true, lexicalCeiling: 8, ranked: [prose, other] }, question);
    // The passage quoted, then what retrieval shows (the table page kept), k in all.
    expect(sources).toEqual(['chk_prose', 'chk_table']);
    expect(done.refused).toBe(false);
    expect(done.answer).toContain('95 francs');
    for (const c of done.citations) expect(sources).toContain(c.chunk_id);
  });

  it('shows the order retrieval shows when neither it nor the ranking answers', async () => {
    const { sources, done } = await sent({ chunks: [table, other], confident: true, lexicalCeiling: 8, ranked: [other, table] }, question);
    expect(done.refused).toBe(true);
    expect(sources).toEqual(['chk_table', 'chk_other']);
  });
});
