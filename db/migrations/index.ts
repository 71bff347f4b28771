import type { Migration } from 'kysely';
import * as m0001 from './20261121_0001_foundation';
import * as m0002 from './20261121_0002_documents';
import * as m0003 from './20261121_0003_app_secrets';
import * as m0004 from './20261121_0004_lexicon';
import * as m0100 from './20261123_0100_voice_sessions';
import * as m0301 from './20261123_0301_admin_sessions';
import * as m0401 from './20261123_0401_worker_heartbeats';
import * as m0402 from './20261123_0402_rate_limits';
import * as m0501 from './20261123_0501_document_title';
import * as m0601 from './20261123_0601_document_progress';
import * as m0602 from './20261123_0602_ocr_pages';
import * as m0603 from './20261123_0603_recrawl';
import * as m0701 from './20261125_0701_voice_slots';
import * as m0702 from './20261125_0702_hnsw_m12';
import * as m0801 from './20261126_0801_document_identity';
import * as m0840 from './20261126_0840_voice_real_api';
import * as m0920 from './20261126_0920_chunk_curation';
import * as m0900 from './20261126_0900_conversation_insights';
import * as m0930 from './20261126_0930_ingest_pending_chunks';
import * as m1040 from './20261126_1040_kb_voice_settings';
import * as m1060 from './20261126_1060_upload_batches';
import * as m1100 from './20261126_1100_document_file_parts';
import * as m1200 from './20261128_1200_document_file_storage';
import * as m1300 from './20261128_1300_vectors_indexed_later';
import * as m1400 from './20261201_1400_document_language';
import * as m0800e from './20261202_0800_evals';
import * as m0820 from './20261202_0820_anonymous_sessions';
import * as m0821 from './20261202_0821_staged_uploads';
import * as m0810 from './20261202_0810_document_content_hash';
import * as m0822 from './20261202_0822_document_warnings';
import * as m0830 from './20261202_0830_eval_run_reingest_trigger';
import * as m0900p from './20261203_0900_people_and_audit';
import * as m1300f from './20261203_1300_fix_loop';

/** Listed explicitly (not read from disk) so migrations work the same under tsx, vitest and bundlers. */
export const migrations: Record<string, Migration> = {
  '20261121_0001_foundation': m0001,
  '20261121_0002_documents': m0002,
  '20261121_0003_app_secrets': m0003,
  '20261121_0004_lexicon': m0004,
  '20261123_0100_voice_sessions': m0100,
  '20261123_0301_admin_sessions': m0301,
  '20261123_0401_worker_heartbeats': m0401,
  '20261123_0402_rate_limits': m0402,
  '20261123_0501_document_title': m0501,
  '20261123_0601_document_progress': m0601,
  '20261123_0602_ocr_pages': m0602,
  '20261123_0603_recrawl': m0603,
  '20261125_0701_voice_slots': m0701,
  '20261125_0702_hnsw_m12': m0702,
  '20261126_0801_document_identity': m0801,
  '20261126_0840_voice_real_api': m0840,
  '20261126_0920_chunk_curation': m0920,
  '20261126_0900_conversation_insights': m0900,
  '20261126_0930_ingest_pending_chunks': m0930,
  '20261126_1040_kb_voice_settings': m1040,
  '20261126_1060_upload_batches': m1060,
  '20261126_1100_document_file_parts': m1100,
  '20261128_1200_document_file_storage': m1200,
  '20261128_1300_vectors_indexed_later': m1300,
  '20261201_1400_document_language': m1400,
  '20261202_0800_evals': m0800e,
  '20261202_0820_anonymous_sessions': m0820,
  '20261202_0821_staged_uploads': m0821,
  '20261202_0810_document_content_hash': m0810,
  '20261202_0822_document_warnings': m0822,
  '20261202_0830_eval_run_reingest_trigger': m0830,
  '20261203_0900_people_and_audit': m0900p,
  '20261203_1300_fix_loop': m1300f,
};
