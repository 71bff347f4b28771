/** The tRPC router: the same services as REST and GraphQL, grouped by domain. */
import { z } from 'zod';
import { AppError } from '../errors';
import { booleanField } from '../http/read-multipart';
import { deleteDocument } from '../services/documents/delete-document';
import { getDocument, ZDocumentRef } from '../services/documents/get-document';
import { ingestUpload } from '../services/documents/ingest-upload';
import { ingestUploads } from '../services/documents/ingest-uploads';
import { ingestUrl, ZIngestUrlInput } from '../services/documents/ingest-url';
import { getUploadBatch, ZUploadBatchRef } from '../services/documents/upload-batch';
import { listDocuments, ZListDocumentsInput } from '../services/documents/list-documents';
import { listChunks, ZListChunksInput } from '../services/documents/list-chunks';
import { listCrawlPages } from '../services/documents/list-crawl-pages';
import { updateChunk, ZUpdateChunkInput } from '../services/documents/curate-chunk';
import { reingestDocument } from '../services/documents/reingest-document';
import { recrawlNow, setRecrawl, ZSetRecrawlInput } from '../services/documents/recrawl-document';
import { createKb, ZCreateKbInput } from '../services/kbs/create-kb';
import { deleteKb } from '../services/kbs/delete-kb';
import { getKb, ZKbRef } from '../services/kbs/get-kb';
import { listKbs } from '../services/kbs/list-kbs';
import { updateKb, ZUpdateKbInput } from '../services/kbs/update-kb';
import { getOrgSettings, updateOrgSettings, ZUpdateOrgSettingsInput } from '../services/orgs/org-settings';
import { getOrgUsage } from '../services/voice/voice-usage';
import { getVoiceSettings, updateVoiceSettings, ZUpdateVoiceSettingsInput, ZVoiceSettingsRef } from '../services/voice/update-voice-settings';
import { collectChat, startChat, ZChatInput } from '../services/chat/send-chat-message';
import { deleteSession, getConversation, listSessionMessages, ZSessionRef } from '../services/chat/session-messages';
import { listConversations, ZListConversationsInput } from '../services/chat/list-conversations';
import { getActivity, ZActivityInput } from '../services/insights/activity';
import { listUnansweredQuestions, ZUnansweredInput } from '../services/insights/unanswered-questions';
import { collectAnswer, collectSearchResponse } from '../services/rag/answer-events';
import { startSearch, ZSearchInput } from '../services/rag/search';
import { compareEvalRuns, ZCompareEvalRunsInput } from '../services/evals/compare-eval-runs';
import { createEvalCase, ZCreateEvalCaseInput } from '../services/evals/create-eval-case';
import { deleteEvalCase } from '../services/evals/delete-eval-case';
import { getEvalSettings, updateEvalSettings, ZUpdateEvalSettingsInput } from '../services/evals/eval-settings';
import { exportEvalCases, ZExportEvalCasesInput } from '../services/evals/export-eval-cases';
import { importEvalCases, ZImportEvalCasesInput } from '../services/evals/import-eval-cases';
import { listEvalCases, ZEvalKbRef } from '../services/evals/list-eval-cases';
import { getEvalRun, listEvalRuns, ZEvalRunRef, ZListEvalRunsInput } from '../services/evals/list-eval-runs';
import { startEvalRun, ZStartEvalRunInput } from '../services/evals/start-eval-run';
import { updateEvalCase, ZEvalCaseRef, ZUpdateEvalCaseInput } from '../services/evals/update-eval-case';
import { listAuditLog, ZListAuditLogInput } from '../services/audit/list-audit-log';
import { createApiKey, ZCreateApiKeyInput } from '../services/api-keys/create-api-key';
import { listApiKeys } from '../services/api-keys/list-api-keys';
import { revokeApiKey } from '../services/api-keys/revoke-api-key';
import { createAnnotation, ZCreateAnnotationInput } from '../services/annotations/create-annotation';
import { deleteAnnotation } from '../services/annotations/delete-annotation';
import { listAnnotations, ZListAnnotationsInput } from '../services/annotations/list-annotations';
import { updateAnnotation, ZUpdateAnnotationInput } from '../services/annotations/update-annotation';
import { ZAnnotationRef } from '../services/annotations/annotation-dto';
import { setDocumentEnabled, ZSetDocumentEnabledInput } from '../services/documents/set-document-enabled';
import { inviteMember, listInvitations, revokeInvitation, ZInviteInput } from '../services/people/invitations';
import { changeMemberRole, listMembers, removeMember, resetMemberPassword, ZChangeRoleInput } from '../services/people/members';
import { listSessions, revokeSession } from '../services/people/org-sessions';
import { authedProcedure, router } from './init';

const ZIdRef = z.object({ id: z.string().min(1) }).strict();

export const appRouter = router({
  rag: router({
    search: authedProcedure
      .input(ZSearchInput.omit({ stream: true }))
      .mutation(async ({ ctx, input, signal }) => collectSearchResponse(await startSearch(ctx.svc, input, signal))),
    chat: authedProcedure
      .input(ZChatInput.omit({ stream: true }))
      .mutation(async ({ ctx, input, signal }) => collectChat(await startChat(ctx.svc, input, signal))),
  }),
  chat: router({
    messages: authedProcedure.input(ZSessionRef).query(({ ctx, input }) => listSessionMessages(ctx.svc, input)),
    deleteSession: authedProcedure.input(ZSessionRef).mutation(({ ctx, input }) => deleteSession(ctx.svc, input)),
    conversations: authedProcedure.input(ZListConversationsInput).query(({ ctx, input }) => listConversations(ctx.svc, input)),
    conversation: authedProcedure.input(ZSessionRef).query(({ ctx, input }) => getConversation(ctx.svc, input)),
  }),
  insights: router({
    unanswered: authedProcedure.input(ZUnansweredInput).query(({ ctx, input }) => listUnansweredQuestions(ctx.svc, input)),
    activity: authedProcedure.input(ZActivityInput).query(({ ctx, input }) => getActivity(ctx.svc, input)),
  }),
  members: router({
    list: authedProcedure.query(({ ctx }) => listMembers(ctx.svc)),
    invitations: authedProcedure.query(({ ctx }) => listInvitations(ctx.svc)),
    invite: authedProcedure.input(ZInviteInput).mutation(({ ctx, input }) => inviteMember(ctx.svc, input)),
    revokeInvitation: authedProcedure.input(ZIdRef).mutation(({ ctx, input }) => revokeInvitation(ctx.svc, input.id)),
    changeRole: authedProcedure.input(ZChangeRoleInput).mutation(({ ctx, input }) => changeMemberRole(ctx.svc, input)),
    remove: authedProcedure.input(ZIdRef).mutation(({ ctx, input }) => removeMember(ctx.svc, input.id)),
    resetPassword: authedProcedure.input(ZIdRef).mutation(({ ctx, input }) => resetMemberPassword(ctx.svc, input.id)),
  }),
  sessions: router({
    list: authedProcedure.query(({ ctx }) => listSessions(ctx.svc)),
    revoke: authedProcedure.input(ZIdRef).mutation(({ ctx, input }) => revokeSession(ctx.svc, input.id)),
  }),
  audit: router({
    list: authedProcedure.input(ZListAuditLogInput).query(({ ctx, input }) => listAuditLog(ctx.svc, input)),
  }),
  keys: router({
    list: authedProcedure.query(({ ctx }) => listApiKeys(ctx.svc)),
    create: authedProcedure.input(ZCreateApiKeyInput).mutation(({ ctx, input }) => createApiKey(ctx.svc, input)),
    revoke: authedProcedure.input(ZIdRef).mutation(({ ctx, input }) => revokeApiKey(ctx.svc, input.id)),
  }),
  org: router({
    settings: authedProcedure.query(({ ctx }) => getOrgSettings(ctx.svc)),
    updateSettings: authedProcedure.input(ZUpdateOrgSettingsInput).mutation(({ ctx, input }) => updateOrgSettings(ctx.svc, input)),
    usage: authedProcedure.query(({ ctx }) => getOrgUsage(ctx.svc)),
  }),
  /** Voice settings of the organisation, or a KB's override with `kb_id`. */
  voice: router({
    settings: authedProcedure.input(ZVoiceSettingsRef.optional()).query(({ ctx, input }) => getVoiceSettings(ctx.svc, input ?? {})),
    updateSettings: authedProcedure.input(ZUpdateVoiceSettingsInput).mutation(({ ctx, input }) => updateVoiceSettings(ctx.svc, input)),
  }),
  kbs: router({
    list: authedProcedure.query(({ ctx }) => listKbs(ctx.svc)),
    get: authedProcedure.input(ZKbRef).query(({ ctx, input }) => getKb(ctx.svc, input)),
    create: authedProcedure.input(ZCreateKbInput).mutation(({ ctx, input }) => createKb(ctx.svc, input)),
    update: authedProcedure.input(ZUpdateKbInput).mutation(({ ctx, input }) => updateKb(ctx.svc, input)),
    delete: authedProcedure.input(ZKbRef).mutation(({ ctx, input }) => deleteKb(ctx.svc, input)),
  }),
  /** A KB's test set and its runs (src/services/evals/); every input names the KB by `kb_id`. */
  evals: router({
    cases: authedProcedure.input(ZEvalKbRef).query(({ ctx, input }) => listEvalCases(ctx.svc, input)),
    createCase: authedProcedure.input(ZCreateEvalCaseInput).mutation(({ ctx, input }) => createEvalCase(ctx.svc, input)),
    updateCase: authedProcedure.input(ZUpdateEvalCaseInput).mutation(({ ctx, input }) => updateEvalCase(ctx.svc, input)),
    deleteCase: authedProcedure.input(ZEvalCaseRef).mutation(({ ctx, input }) => deleteEvalCase(ctx.svc, input)),
    import: authedProcedure.input(ZImportEvalCasesInput).mutation(({ ctx, input }) => importEvalCases(ctx.svc, input)),
    export: authedProcedure.input(ZExportEvalCasesInput).query(({ ctx, input }) => exportEvalCases(ctx.svc, input)),
    settings: authedProcedure.input(ZEvalKbRef).query(({ ctx, input }) => getEvalSettings(ctx.svc, input)),
    updateSettings: authedProcedure.input(ZUpdateEvalSettingsInput).mutation(({ ctx, input }) => updateEvalSettings(ctx.svc, input)),
    startRun: authedProcedure.input(ZStartEvalRunInput).mutation(({ ctx, input }) => startEvalRun(ctx.svc, input)),
    runs: authedProcedure.input(ZListEvalRunsInput).query(({ ctx, input }) => listEvalRuns(ctx.svc, input)),
    run: authedProcedure.input(ZEvalRunRef).query(({ ctx, input }) => getEvalRun(ctx.svc, input)),
    compare: authedProcedure.input(ZCompareEvalRunsInput).query(({ ctx, input }) => compareEvalRuns(ctx.svc, input)),
  }),
  /** Curated answers of a KB (src/services/annotations/); every input names the KB by `kb_id`. */
  annotations: router({
    list: authedProcedure.input(ZListAnnotationsInput).query(({ ctx, input }) => listAnnotations(ctx.svc, input)),
    create: authedProcedure.input(ZCreateAnnotationInput).mutation(({ ctx, input }) => createAnnotation(ctx.svc, input)),
    update: authedProcedure.input(ZUpdateAnnotationInput).mutation(({ ctx, input }) => updateAnnotation(ctx.svc, input)),
    delete: authedProcedure.input(ZAnnotationRef).mutation(({ ctx, input }) => deleteAnnotation(ctx.svc, input)),
  }),
  documents: router({
    setEnabled: authedProcedure.input(ZSetDocumentEnabledInput).mutation(({ ctx, input }) => setDocumentEnabled(ctx.svc, input)),
    list: authedProcedure.input(ZListDocumentsInput).query(({ ctx, input }) => listDocuments(ctx.svc, input)),
    get: authedProcedure.input(ZDocumentRef).query(({ ctx, input }) => getDocument(ctx.svc, input)),
    delete: authedProcedure.input(ZDocumentRef).mutation(({ ctx, input }) => deleteDocument(ctx.svc, input)),
    reingest: authedProcedure.input(ZDocumentRef).mutation(({ ctx, input }) => reingestDocument(ctx.svc, input)),
    recrawl: authedProcedure.input(ZDocumentRef).mutation(({ ctx, input }) => recrawlNow(ctx.svc, input)),
    setRecrawl: authedProcedure.input(ZSetRecrawlInput).mutation(({ ctx, input }) => setRecrawl(ctx.svc, input)),
    ingestUrl: authedProcedure.input(ZIngestUrlInput).mutation(({ ctx, input }) => ingestUrl(ctx.svc, input)),
    chunks: authedProcedure.input(ZListChunksInput).query(({ ctx, input }) => listChunks(ctx.svc, input)),
    updateChunk: authedProcedure.input(ZUpdateChunkInput).mutation(({ ctx, input }) => updateChunk(ctx.svc, input)),
    pages: authedProcedure.input(ZDocumentRef).query(({ ctx, input }) => listCrawlPages(ctx.svc, input)),
    /** A bulk upload's progress by its batch_id (`{kb_id, id}`). */
    batch: authedProcedure.input(ZUploadBatchRef).query(({ ctx, input }) => getUploadBatch(ctx.svc, input)),
    /** FormData with `file` and `kb_id`, like REST's multipart upload. */
    upload: authedProcedure.input(z.instanceof(FormData)).mutation(async ({ ctx, input }) => {
      const file = input.get('file');
      const kbId = input.get('kb_id');
      if (!(file instanceof Blob)) throw new AppError('invalid_input', '"file" is required', { field: 'file' });
      if (typeof kbId !== 'string' || !kbId) throw new AppError('invalid_input', '"kb_id" is required', { field: 'kb_id' });
      if (file.size > ctx.svc.config.maxUploadBytes) throw new AppError('payload_too_large', 'The file exceeds the upload limit', { field: 'file' });
      const filename = file instanceof File ? file.name : 'upload';
      return ingestUpload(ctx.svc, { kb_id: kbId, filename, bytes: Buffer.from(await file.arrayBuffer()), replace: booleanField(input.get('replace'), 'replace') });
    }),
    /** FormData with repeated `file` entries (documents or ZIPs) and `kb_id`: `{batch_id, documents, files}`. */
    uploadMany: authedProcedure.input(z.instanceof(FormData)).mutation(async ({ ctx, input }) => {
      const kbId = input.get('kb_id');
      if (typeof kbId !== 'string' || !kbId) throw new AppError('invalid_input', '"kb_id" is required', { field: 'kb_id' });
      const blobs = input.getAll('file').filter((f): f is File => f instanceof Blob);
      const { maxFiles } = ctx.svc.config.bulkUpload;
      if (blobs.length > maxFiles) throw new AppError('invalid_input', `Upload at most ${maxFiles} files per request`, { field: 'file' });
      const files = await Promise.all(
        blobs.map(async (f) => {
          const tooLarge = f.size > ctx.svc.config.maxUploadBytes;
          return { filename: f.name || 'upload', bytes: tooLarge ? Buffer.alloc(0) : Buffer.from(await f.arrayBuffer()), tooLarge };
        }),
      );
      return ingestUploads(ctx.svc, { kb_id: kbId, files, replace: booleanField(input.get('replace'), 'replace') });
    }),
  }),
});

export type AppRouter = typeof appRouter;
