/** Task `kbs__index_vectors`: move a KB's pending vectors into the HNSW index (src/services/documents/index-vectors.ts). */
import type { Task } from 'graphile-worker';
import type { AppDeps } from '../context';
import type { KbId } from '../ids';
import { indexPendingVectors } from '../services/documents/index-vectors';
import { JOB_PAYLOADS } from './enqueue';

export function kbsIndexVectors(deps: AppDeps): Task {
  return async (payload) => {
    const { kb_id } = JOB_PAYLOADS.kbs__index_vectors.parse(payload);
    await indexPendingVectors(deps, kb_id as KbId);
  };
}
