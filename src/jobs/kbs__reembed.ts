/** Task `kbs__reembed`: move one KB's vectors to the current embedding model. */
import type { Task } from 'graphile-worker';
import type { AppDeps } from '../context';
import type { KbId } from '../ids';
import { reembedKb } from '../services/kbs/reembed-kb';
import { JOB_PAYLOADS } from './enqueue';

export function kbsReembed(deps: AppDeps): Task {
  return async (payload) => {
    const { kb_id } = JOB_PAYLOADS.kbs__reembed.parse(payload);
    await reembedKb(deps, kb_id as KbId);
  };
}
