/** Task `uploads__admit`: one turn of making a bulk upload's stored files into documents. */
import type { Task } from 'graphile-worker';
import type { AppDeps } from '../context';
import type { BatchId } from '../ids';
import { admitStagedUploads } from '../services/documents/admit-staged-uploads';
import { JOB_PAYLOADS } from './enqueue';

export function uploadsAdmit(deps: AppDeps): Task {
  return async (payload) => {
    const { batch_id } = JOB_PAYLOADS.uploads__admit.parse(payload);
    await admitStagedUploads(deps, batch_id as BatchId);
  };
}
