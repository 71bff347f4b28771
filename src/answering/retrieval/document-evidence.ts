/**
 * Document-level evidence from the passages themselves: when several of the best candidates come
 * from one document, that document is more likely the one about the question than a document with
 * one slightly better passage. Reports of one company over many periods repeat the same words, so a
 * single passage of another period often edges out the right one; the right report tends to hold
 * several passages on the subject ("storage compression" is discussed at length in one call and
 * mentioned in passing in the next).
 *
 * A document's evidence is the sum of its passages' positive scores among the best few candidates,
 * relative to the best document's; each of its candidates moves up by that share of
 * DOCUMENT_EVIDENCE. A passage next to one already counted is not counted again: neighbouring
 * chunks share their overlap, and a paragraph split in two is one piece of evidence, not two. When
 * no document has two separate passages among the best candidates, the ranking and scores stay
 * exactly as fused (documents of one or two chunks).
 */
import { DOCUMENT_EVIDENCE, EVIDENCE_CANDIDATES } from '../calibration';

export function documentEvidence(rows: Array<{ document_id: string; position: number; fused: number }>): number[] {
  const best = [...rows].sort((a, b) => b.fused - a.fused).slice(0, EVIDENCE_CANDIDATES);
  const sum = new Map<string, number>();
  const counted = new Map<string, number[]>();
  let separate = false;
  for (const r of best) {
    const at = counted.get(r.document_id) ?? [];
    if (!at.some((p) => Math.abs(p - r.position) <= 1)) {
      sum.set(r.document_id, (sum.get(r.document_id) ?? 0) + Math.max(0, r.fused));
      separate ||= at.length > 0;
    }
    counted.set(r.document_id, [...at, r.position]);
  }
  const top = Math.max(0, ...sum.values());
  if (top <= 0 || !separate) return rows.map(() => 0);
  return rows.map((r) => (DOCUMENT_EVIDENCE * (sum.get(r.document_id) ?? 0)) / top);
}
