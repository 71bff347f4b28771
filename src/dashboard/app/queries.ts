/** Every GraphQL operation the dashboard sends, typed against the schema by gql.tada. */
import { graphql } from './gql';

export const DocumentFields = graphql(`
  fragment DocumentFields on Document {
    id kbId filename source status chunkCount error errorSummary sizeBytes pages createdAt updatedAt warnings { code message pages }
    identity { subject kind period source confidence } language
    stage progress { done total unit } enabled
  }
`);

export const SignIn = graphql(`mutation SignIn($apiKey: String!) { signIn(apiKey: $apiKey) { expiresAt } }`);
export const SignOut = graphql(`mutation SignOut { signOut }`);

export const Me = graphql(`
  query Me {
    organization { id slug name plan settings { voiceEnabled voiceAvailable voiceUnavailableReason voiceBlockedReason allowedOrigins } }
    me { kind email role permissions hasPassword }
  }
`);

export const KbList = graphql(`
  query KbList { knowledgeBases { id name description docCount widgetEnabled createdAt } }
`);

export const CreateKb = graphql(`
  mutation CreateKb($input: CreateKnowledgeBaseInput!) { createKnowledgeBase(input: $input) { id name } }
`);
export const UpdateKb = graphql(`
  mutation UpdateKb($input: UpdateKnowledgeBaseInput!) { updateKnowledgeBase(input: $input) { id name description widgetEnabled } }
`);
export const DeleteKb = graphql(`mutation DeleteKb($id: ID!) { deleteKnowledgeBase(id: $id) { success } }`);

export const KbDocuments = graphql(
  `
  query KbDocuments($id: ID!, $first: Int, $after: String, $status: DocumentStatus) {
    knowledgeBase(id: $id) {
      id name description docCount
      documentCounts { processing ready failed }
      documentPage(first: $first, after: $after, status: $status) { nodes { ...DocumentFields } nextCursor }
    }
  }
`,
  [DocumentFields],
);

export const UploadFile = graphql(
  `mutation UploadFile($kbId: ID!, $file: File!) { uploadFile(kbId: $kbId, file: $file) { duplicate document { ...DocumentFields } } }`,
  [DocumentFields],
);
export const IngestUrl = graphql(
  `mutation IngestUrl($input: IngestUrlInput!) { ingestUrl(input: $input) { ...DocumentFields } }`,
  [DocumentFields],
);
export const DocumentUpdates = graphql(
  `subscription DocumentUpdates($kbId: ID!) { documentUpdates(kbId: $kbId) { ...DocumentFields } }`,
  [DocumentFields],
);
export const DeleteDocument = graphql(`mutation DeleteDocument($kbId: ID!, $id: ID!) { deleteDocument(kbId: $kbId, id: $id) { success } }`);
export const ReingestDocument = graphql(
  `mutation ReingestDocument($kbId: ID!, $id: ID!) { reingestDocument(kbId: $kbId, id: $id) { ...DocumentFields } }`,
  [DocumentFields],
);

export const ChunkFields = graphql(`
  fragment ChunkFields on Chunk { id position text headingPath page url tokenCount enabled editedAt duplicates }
`);

export const DocumentDetail = graphql(
  `
  query DocumentDetail($kbId: ID!, $id: ID!, $after: Int, $query: String) {
    document(kbId: $kbId, id: $id) {
      ...DocumentFields
      recrawl lastCrawledAt nextCrawlAt lastCrawlChanges { added changed removed unchanged }
      chunks(first: 50, after: $after, query: $query) { nodes { ...ChunkFields } nextAfter }
    }
  }
`,
  [DocumentFields, ChunkFields],
);

export const CrawlPages = graphql(`
  query CrawlPages($kbId: ID!, $id: ID!) {
    document(kbId: $kbId, id: $id) { id crawlPages { url title state chunks fetchedAt changedAt lastChange reason detail } }
  }
`);

export const UpdateChunk = graphql(
  `mutation UpdateChunk($kbId: ID!, $documentId: ID!, $chunkId: ID!, $enabled: Boolean, $text: String) {
    updateChunk(kbId: $kbId, documentId: $documentId, chunkId: $chunkId, enabled: $enabled, text: $text) { ...ChunkFields }
  }`,
  [ChunkFields],
);
export const RecrawlDocument = graphql(
  `mutation RecrawlDocument($kbId: ID!, $id: ID!) { recrawlDocument(kbId: $kbId, id: $id) { ...DocumentFields } }`,
  [DocumentFields],
);
export const SetRecrawl = graphql(
  `mutation SetRecrawl($kbId: ID!, $id: ID!, $recrawl: RecrawlSchedule) { setDocumentRecrawl(kbId: $kbId, id: $id, recrawl: $recrawl) { id recrawl nextCrawlAt } }`,
);

export const CitationFields = graphql(`
  fragment CitationFields on Citation { marker docId chunkId filename url page heading snippet score sourceType annotationId title }
`);

export const ChatStream = graphql(
  `
  subscription ChatStream($kbId: ID!, $message: String!, $sessionId: ID) {
    chatStream(kbId: $kbId, message: $message, sessionId: $sessionId) {
      type sessionId query text answer citations { ...CitationFields }
      decision { answered reason passages { marker chunkId filename url page heading text score lexicalScore vectorScore } }
    }
  }
`,
  [CitationFields],
);

export const Retrieve = graphql(`
  query Retrieve($kbId: ID!, $query: String!, $topK: Int) {
    retrieve(kbId: $kbId, query: $query, topK: $topK) {
      confident reason
      passages { rank chunkId filename text headingPath page url score lexicalScore vectorScore }
    }
  }
`);

export const Conversations = graphql(`
  query Conversations($kbId: ID!, $after: String) {
    conversations(kbId: $kbId, first: 20, after: $after) { nodes { id createdAt updatedAt messageCount firstQuestion } nextCursor }
  }
`);

export const ChatMessages = graphql(
  `
  query ChatMessages($kbId: ID!, $sessionId: ID!) {
    chatMessages(kbId: $kbId, sessionId: $sessionId) { id role content createdAt citations { ...CitationFields } }
  }
`,
  [CitationFields],
);

export const UpdateSettings = graphql(`
  mutation UpdateSettings($input: UpdateOrganizationSettingsInput!) {
    updateOrganizationSettings(input: $input) { voiceEnabled voiceAvailable voiceUnavailableReason voiceBlockedReason allowedOrigins }
  }
`);

export const ApiKeys = graphql(`query ApiKeys { apiKeys { id prefix name scope createdAt lastUsedAt revokedAt } }`);
export const CreateApiKey = graphql(`mutation CreateApiKey($name: String, $scope: String) { createApiKey(name: $name, scope: $scope) { apiKey key { id prefix scope } } }`);
export const RevokeApiKey = graphql(`mutation RevokeApiKey($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }`);

export const Usage = graphql(`
  query Usage { usage { knowledgeBases maxKnowledgeBases documents maxDocuments questionsAsked voiceMinutes voiceInputTokens voiceOutputTokens } }
`);

export const ConversationLog = graphql(`
  query ConversationLog($kbId: ID!, $after: String, $from: String, $to: String, $source: ConversationSource, $refused: Boolean, $feedback: FeedbackFilter, $search: String) {
    conversations(kbId: $kbId, first: 25, after: $after, from: $from, to: $to, source: $source, refused: $refused, feedback: $feedback, search: $search) {
      nodes { id source createdAt updatedAt turnCount refusedCount feedbackUp feedbackDown firstQuestion }
      nextCursor
    }
  }
`);

export const ConversationTranscript = graphql(
  `
  query ConversationTranscript($kbId: ID!, $id: ID!) {
    conversation(kbId: $kbId, id: $id) {
      conversation { id source createdAt updatedAt turnCount refusedCount feedbackUp feedbackDown }
      messages { id role content createdAt refused support feedback feedbackComment citations { ...CitationFields } }
    }
  }
`,
  [CitationFields],
);

export const Unanswered = graphql(`
  query Unanswered($kbId: ID!, $from: String, $to: String) {
    unansweredQuestions(kbId: $kbId, from: $from, to: $to, first: 50) {
      scanned
      groups { question count refusedCount ratedDownCount lastAskedAt questions { messageId sessionId text askedAt refused support ratedDown } }
    }
  }
`);

export const ActivityQuery = graphql(`
  query Activity($kbId: ID, $from: String, $to: String) {
    activity(kbId: $kbId, from: $from, to: $to) {
      from to
      total { questions answered refused feedbackUp feedbackDown }
      days { day questions answered refused feedbackUp feedbackDown }
      knowledgeBases { kbId kbName questions answered refused feedbackUp feedbackDown }
    }
  }
`);

export const VoiceSettings = graphql(`
  query VoiceSettings($kbId: ID) { voiceSettings(kbId: $kbId) { kbId turnDetection eagerness voice instructionsSuffix overridden voiceEnabled voiceAvailable voiceUnavailableReason } }
`);
export const UpdateVoiceSettings = graphql(`
  mutation UpdateVoiceSettings($input: UpdateVoiceSettingsInput!) {
    updateVoiceSettings(input: $input) { kbId turnDetection eagerness voice instructionsSuffix overridden voiceEnabled voiceAvailable voiceUnavailableReason }
  }
`);

export const EvalRunFields = graphql(`
  fragment EvalRunFields on EvalRun {
    id status trigger done total topK createdAt finishedAt error
    summary { cases hitAt1 hitAtK pageHitAtK answerContains refusalPrecision refusalRecall judgePass latencyP50Ms latencyP95Ms errors }
    regression { flagged previousRunId threshold webhook drops { figure before after } }
  }
`);

export const EvalCases = graphql(`
  query EvalCases($kbId: ID!) { evalCases(kbId: $kbId) { id question answer documents pages answerable source createdAt } }
`);
export const EvalRuns = graphql(`query EvalRuns($kbId: ID!) { evalRuns(kbId: $kbId, first: 30) { ...EvalRunFields } }`, [EvalRunFields]);
export const EvalComparisonQuery = graphql(`
  query EvalComparison($kbId: ID!, $runId: ID!) {
    evalComparison(kbId: $kbId, runId: $runId) {
      better worse same
      cases { caseId question change base { docHitRank answerContains refused } run { docHitRank answerContains refused answer } }
    }
  }
`);
export const CreateEvalCase = graphql(`
  mutation CreateEvalCase($input: EvalCaseInput!) { createEvalCase(input: $input) { id question answerable } }
`);
export const DeleteEvalCase = graphql(`mutation DeleteEvalCase($kbId: ID!, $id: ID!) { deleteEvalCase(kbId: $kbId, id: $id) { success } }`);
export const ImportEvalCases = graphql(`
  mutation ImportEvalCases($kbId: ID!, $content: String!, $format: EvalFileFormat) { importEvalCases(kbId: $kbId, content: $content, format: $format) { imported } }
`);
export const StartEvalRun = graphql(`mutation StartEvalRun($kbId: ID!) { startEvalRun(kbId: $kbId) { ...EvalRunFields } }`, [EvalRunFields]);

export const AuditLog = graphql(`
  query AuditLog($action: String, $actor: String, $from: String, $to: String, $before: String) {
    auditLog(action: $action, actor: $actor, from: $from, to: $to, before: $before, first: 50) {
      entries { id at actor { type label } ip action targetType targetId changes }
      nextBefore
    }
  }
`);
export const SetDocumentEnabled = graphql(
  `mutation SetDocumentEnabled($kbId: ID!, $id: ID!, $enabled: Boolean!) { setDocumentEnabled(kbId: $kbId, id: $id, enabled: $enabled) { ...DocumentFields } }`,
  [DocumentFields],
);

export const AnnotationFields = graphql(`
  fragment AnnotationFields on Annotation { id kbId question answer enabled createdBy createdAt updatedAt }
`);
export const AnnotationList = graphql(`query AnnotationList($kbId: ID!) { annotations(kbId: $kbId) { ...AnnotationFields } }`, [AnnotationFields]);
export const CreateAnnotation = graphql(
  `mutation CreateAnnotation($kbId: ID!, $question: String!, $answer: String!, $from: AnnotationFrom, $messageId: ID) {
    createAnnotation(kbId: $kbId, question: $question, answer: $answer, from: $from, messageId: $messageId) { ...AnnotationFields }
  }`,
  [AnnotationFields],
);
export const UpdateAnnotation = graphql(
  `mutation UpdateAnnotation($kbId: ID!, $id: ID!, $question: String, $answer: String, $enabled: Boolean) {
    updateAnnotation(kbId: $kbId, id: $id, question: $question, answer: $answer, enabled: $enabled) { ...AnnotationFields }
  }`,
  [AnnotationFields],
);
export const DeleteAnnotation = graphql(`mutation DeleteAnnotation($kbId: ID!, $id: ID!) { deleteAnnotation(kbId: $kbId, id: $id) { deleted } }`);

export const SignInWithPassword = graphql(`mutation SignInWithPassword($email: String!, $password: String!) { signInWithPassword(email: $email, password: $password) { expiresAt } }`);
export const SetPassword = graphql(`mutation SetPassword($current: String, $password: String!) { setPassword(current: $current, password: $password) }`);
export const People = graphql(`
  query People {
    members { id email name role hasPassword createdAt }
    invitations { id email role expiresAt }
    sessions { id email via createdAt lastSeenAt ip userAgent current }
  }
`);
export const InviteMember = graphql(`mutation InviteMember($email: String!, $role: String!) { inviteMember(email: $email, role: $role) { link emailed invitation { id email role } } }`);
export const ChangeMemberRole = graphql(`mutation ChangeMemberRole($id: ID!, $role: String!) { changeMemberRole(id: $id, role: $role) { id role } }`);
export const RemoveMember = graphql(`mutation RemoveMember($id: ID!) { removeMember(id: $id) }`);
export const ResetMemberPassword = graphql(`mutation ResetMemberPassword($id: ID!) { resetMemberPassword(id: $id) { link expiresAt } }`);
export const RevokeSession = graphql(`mutation RevokeSession($id: ID!) { revokeSession(id: $id) }`);
export const RevokeInvitation = graphql(`mutation RevokeInvitation($id: ID!) { revokeInvitation(id: $id) }`);
