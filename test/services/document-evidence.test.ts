/**
 * Document-level evidence: a document with several separate passages among the best candidates
 * overtakes one with a single slightly better passage; a paragraph split into neighbouring chunks
 * is one piece of evidence, so it changes nothing among one-passage documents.
 */
import { describe, expect, it } from 'vitest';
import { documentEvidence } from '../../src/answering/retrieval/document-evidence';
import { DOCUMENT_EVIDENCE } from '../../src/answering/calibration';

const rerank = (rows: Array<{ document_id: string; position: number; fused: number }>) => {
  const e = documentEvidence(rows);
  return rows
    .map((r, i) => ({ ...r, fused: r.fused + e[i]! }))
    .sort((a, b) => b.fused - a.fused)
    .map((r) => `${r.document_id}#${r.position}`);
};

describe('documentEvidence', () => {
  it('puts the document that several separate passages come from first', () => {
    const rows = [
      { document_id: 'q2-call', position: 40, fused: 1.6 },
      { document_id: 'q1-call', position: 12, fused: 1.5 },
      { document_id: 'q1-call', position: 30, fused: 1.4 },
      { document_id: 'q3-call', position: 7, fused: 0.9 },
      { document_id: 'q1-call', position: 55, fused: 0.8 },
      { document_id: 'q3-call', position: 60, fused: -0.5 },
    ];
    expect(rerank(rows).slice(0, 3)).toEqual(['q1-call#12', 'q1-call#30', 'q2-call#40']);
    const e = documentEvidence(rows);
    expect(e[1]).toBe(DOCUMENT_EVIDENCE);
    // Outside the best five candidates nothing counts, but the document's passages all move.
    expect(e[5]).toBeCloseTo((DOCUMENT_EVIDENCE * 0.9) / (1.5 + 1.4 + 0.8));
  });

  it('counts neighbouring chunks of one document once, so the documents keep their order', () => {
    const rows = [
      { document_id: 'p1', position: 0, fused: 1.6 },
      { document_id: 'p2', position: 0, fused: 1.5 },
      { document_id: 'p2', position: 1, fused: 1.4 },
      { document_id: 'p3', position: 0, fused: 0.9 },
    ];
    expect(documentEvidence(rows)).toEqual([0, 0, 0, 0]);
    expect(rerank(rows.map((r) => (r.document_id === 'p2' && r.position === 1 ? { ...r, position: 5 } : r)))[0]).toBe('p2#0');
  });

  it('adds nothing when no candidate scores above the mean', () => {
    expect(documentEvidence([{ document_id: 'a', position: 0, fused: -0.2 }, { document_id: 'a', position: 4, fused: -0.3 }])).toEqual([0, 0]);
    expect(documentEvidence([])).toEqual([]);
  });
});
