/**
 * A heading or a title names what follows; it does not answer. A question that names its document
 * ("…does the Harbour Authority's 2024 report call…") shares many words with the document's cover
 * line, and the answer must be the sentence that says what it asks, not that line.
 */
import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { createOfflineModel } from '../../src/answering/offline';
import { isHeadingLike } from '../../src/answering/offline/answerer';
import { buildAnswerPrompt } from '../../src/ai/prompts';
import { answerPassages } from '../../src/answering/answer-stream';
import type { ChunkId, DocumentId } from '../../src/ids';
import type { RetrievedChunk } from '../../src/answering/retrieval/retrieve';

const chunk = (page: number, text: string): RetrievedChunk => ({
    chunk_id: `chk_${page}` as ChunkId,
    doc_id: 'doc_harbour' as DocumentId,
    filename: 'HA2024.pdf',
    title: 'HA2024',
    identity: { kind: null, period: '2024', source: 'running', running: ['Acme Harbour Authority'], subject: 'Acme Harbour Authority', headline: ['ACME HARBOUR AUTHORITY ANNUAL REPORT 2024'] },
    source: 'upload',
    text,
    heading_path: [],
    page,
    url: null,
    score: 0.5,
    lexical: 1,
    dense: 0.5,
  });

describe('headings and titles in the offline answer', () => {
  it('tells a heading from a sentence', () => {
    expect(isHeadingLike('THE HARBOUR STRATEGIC PLAN Fiscal Years 2020-2024')).toBe(true);
    expect(isHeadingLike('Annual Performance Report')).toBe(true);
    expect(isHeadingLike('The tug Marlin is the oldest vessel in service.')).toBe(false);
    expect(isHeadingLike('Location: Springfield, Illinois')).toBe(false);
    expect(isHeadingLike('Total flight time: 2,319 hours')).toBe(false);
    expect(isHeadingLike('港务局年度报告')).toBe(false);
  });

  it("answers a question naming the document from the sentence that answers it, not the document's cover line", async () => {
    const retrieval = {
      confident: true,
      chunks: [
        chunk(1, 'ACME HARBOUR AUTHORITY ANNUAL REPORT 2024\n\nThe annual report of the Acme Harbour Authority describes the year of the authority.'),
        chunk(5, 'Fleet\n\nThe tug Marlin, built in 1961, is the oldest vessel still in service with the authority.'),
      ],
    };
    const passages = answerPassages(retrieval);
    // The cover's headline is part of every passage's source line.
    expect(passages[1]!.source).toContain('ACME HARBOUR AUTHORITY ANNUAL REPORT 2024');
    const { system, messages } = buildAnswerPrompt({ question: 'Which vessel does the Acme Harbour Authority annual report 2024 call the oldest in service?', passages });
    const { text } = await generateText({ model: createOfflineModel(), system, messages });
    expect(text).toContain('The tug Marlin');
    expect(text).not.toContain('ANNUAL REPORT 2024 [1]');
  });
});
