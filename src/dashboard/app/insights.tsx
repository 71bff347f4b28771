/**
 * What visitors asked: Conversations (every conversation of a KB, filtered and searchable, opened as
 * its transcript with each answer's sources), Unanswered questions (refused or weakly supported,
 * grouped by similar wording) and Activity (questions per day, answered vs refused, feedback).
 * An answer of a transcript and an unanswered group can be saved as a test of the KB's set (Evals).
 */
import { useEffect, useState } from 'preact/hooks';
import { DailyChart } from './chart';
import { gql, GqlError, type ResultOf, type VariablesOf } from './gql';
import { ActivityQuery, ConversationLog, ConversationTranscript, CreateEvalCase, KbList, Unanswered } from './queries';
import { errorMessage, formatDate, Notice, useLoad } from './ui';
import { AnnotationsView, GiveAnswer } from './annotations';

const SOURCES = { api: 'API', widget: 'Widget', voice: 'Widget voice', sandbox: 'Sandbox' } as const;

/** The KB picker every page here shares; the chosen KB is part of the route, so views are linkable. */
function useKb(routeKb: string | undefined, base: string) {
  const kbs = useLoad(() => gql(KbList), []);
  const first = kbs.data?.knowledgeBases[0]?.id;
  useEffect(() => {
    if (!routeKb && first) location.replace(`#${base}/${first}`);
  }, [routeKb, first]);
  const picker = (
    <div>
      <label for={`${base.slice(1)}-kb`}>Knowledge base</label>
      <select id={`${base.slice(1)}-kb`} value={routeKb ?? ''} onChange={(e) => (location.hash = `${base}/${e.currentTarget.value}`)}>
        {kbs.data?.knowledgeBases.map((k) => <option value={k.id}>{k.name}</option>)}
      </select>
    </div>
  );
  return { kbs, picker, empty: kbs.data?.knowledgeBases.length === 0 };
}

function Feedback({ up, down }: { up: number; down: number }) {
  if (!up && !down) return <span class="muted">—</span>;
  return <span>{up} helpful · {down} not helpful</span>;
}

/**
 * "Save as test" on a question someone asked (a conversation's answer, or an unanswered group): the
 * server takes the question's text from the stored message, so the case is what was asked. An
 * answered turn expects the document of its first source again; "Not answerable" expects a refusal.
 * A message gone meanwhile (its conversation was deleted) is said so, not as a bare "not found".
 */
function SaveAsTest(props: { kbId: string; messageId: string; source: 'conversation' | 'unanswered'; expectDocument?: string | undefined; label: string }) {
  const [unanswerable, setUnanswerable] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const expected = unanswerable ? undefined : props.expectDocument;
  return (
    <form class="row save-test" aria-label={props.label} onSubmit={async (e) => {
      e.preventDefault();
      setBusy(true);
      try {
        await gql(CreateEvalCase, {
          input: { kbId: props.kbId, messageId: props.messageId, source: props.source, answerable: !unanswerable, ...(expected ? { documents: [expected] } : {}) },
        });
        setSaved(unanswerable ? 'Saved as a test the knowledge base should refuse.' : `Saved as a test${expected ? ` expecting ${expected}` : ''}.`);
        setError(null);
      } catch (err) {
        setError(
          err instanceof GqlError && err.code === 'not_found'
            ? 'This question can no longer be saved as a test: its conversation was deleted meanwhile. Reload the page.'
            : errorMessage(err),
        );
      } finally {
        setBusy(false);
      }
    }}>
      <label><input type="checkbox" checked={unanswerable} disabled={saved !== null} onChange={(e) => setUnanswerable(e.currentTarget.checked)} /> Not answerable</label>
      <button type="submit" disabled={saved !== null || busy}>Save as test</button>
      <Notice error={error} ok={saved} />
    </form>
  );
}

/** The question an answer answers: the visitor's message before it in the transcript. */
function questionBefore<M extends { id: string; role: string }>(messages: readonly M[], index: number): M | undefined {
  for (let i = index - 1; i >= 0; i--) if (messages[i]!.role === 'user') return messages[i];
  return undefined;
}

type Filters = Omit<VariablesOf<typeof ConversationLog>, 'kbId' | 'after'>;
type Page = ResultOf<typeof ConversationLog>['conversations'];

export function ConversationsView({ kbId, sessionId }: { kbId?: string | undefined; sessionId?: string | undefined }) {
  if (kbId && sessionId) return <TranscriptView kbId={kbId} sessionId={sessionId} />;
  return <ConversationListView kbId={kbId} />;
}

function ConversationListView({ kbId }: { kbId?: string | undefined }) {
  const { picker, empty } = useKb(kbId, '/conversations');
  const [draft, setDraft] = useState<Filters>({});
  const [filters, setFilters] = useState<Filters>({});
  const [page, setPage] = useState<Page | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = async (after?: string) => {
    if (!kbId) return;
    try {
      const r = (await gql(ConversationLog, { kbId, ...filters, ...(after ? { after } : {}) })).conversations;
      setPage((p) => (after && p ? { nodes: [...p.nodes, ...r.nodes], nextCursor: r.nextCursor } : r));
      setError(null);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  useEffect(() => void load(), [kbId, filters]);
  const set = (k: keyof Filters, v: unknown) => setDraft((d) => ({ ...d, [k]: v === '' ? undefined : v }));

  return (
    <>
      <h1>Conversations</h1>
      <p class="muted">Every conversation with this knowledge base: the widget (typed or spoken), the API and the Sandbox.</p>
      {empty && <p class="muted">Create a knowledge base first.</p>}
      <form
        class="card row filters"
        aria-label="Filter conversations"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
        }}
      >
        {picker}
        <div>
          <label for="conv-from">From</label>
          <input id="conv-from" type="date" value={draft.from ?? ''} onInput={(e) => set('from', e.currentTarget.value)} />
        </div>
        <div>
          <label for="conv-to">To</label>
          <input id="conv-to" type="date" value={draft.to ?? ''} onInput={(e) => set('to', e.currentTarget.value)} />
        </div>
        <div>
          <label for="conv-source">Source</label>
          <select id="conv-source" value={draft.source ?? ''} onChange={(e) => set('source', e.currentTarget.value)}>
            <option value="">Any</option>
            {Object.entries(SOURCES).map(([v, l]) => <option value={v}>{l}</option>)}
          </select>
        </div>
        <div>
          <label for="conv-refused">Refused answers</label>
          <select id="conv-refused" value={draft.refused == null ? '' : String(draft.refused)} onChange={(e) => set('refused', e.currentTarget.value === '' ? '' : e.currentTarget.value === 'true')}>
            <option value="">Any</option>
            <option value="true">With a refusal</option>
            <option value="false">None refused</option>
          </select>
        </div>
        <div>
          <label for="conv-feedback">Feedback</label>
          <select id="conv-feedback" value={draft.feedback ?? ''} onChange={(e) => set('feedback', e.currentTarget.value)}>
            <option value="">Any or none</option>
            <option value="any">Rated</option>
            <option value="up">Helpful</option>
            <option value="down">Not helpful</option>
            <option value="none">Not rated</option>
          </select>
        </div>
        <div class="grow">
          <label for="conv-search">Search text</label>
          <input id="conv-search" type="search" style="width:100%" value={draft.search ?? ''} onInput={(e) => set('search', e.currentTarget.value.trim())} />
        </div>
        <button class="primary" type="submit">Apply</button>
      </form>
      <Notice error={error} />
      {page && page.nodes.length === 0 && <p class="muted" role="status">No conversations match.</p>}
      {page && page.nodes.length > 0 && (
        // Focusable, so a keyboard can scroll it when it is wider than a phone.
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Conversations table">
          <table aria-label="Conversations">
            <thead>
              <tr><th>First question</th><th>Source</th><th>Last active</th><th>Turns</th><th>Refused</th><th>Feedback</th></tr>
            </thead>
            <tbody>
              {page.nodes.map((c) => (
                <tr data-conversation={c.id}>
                  <td class="wrap"><a href={`#/conversations/${kbId}/${c.id}`}>{c.firstQuestion ?? '(no question)'}</a></td>
                  <td>{SOURCES[c.source]}</td>
                  <td>{formatDate(c.updatedAt)}</td>
                  <td>{c.turnCount}</td>
                  <td>{c.refusedCount ? <span class="badge failed">{c.refusedCount}</span> : 0}</td>
                  <td><Feedback up={c.feedbackUp} down={c.feedbackDown} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page?.nextCursor && <button type="button" onClick={() => void load(page.nextCursor!)}>Older conversations</button>}
    </>
  );
}

function TranscriptView({ kbId, sessionId }: { kbId: string; sessionId: string }) {
  const { data, error } = useLoad(() => gql(ConversationTranscript, { kbId, id: sessionId }), [kbId, sessionId]);
  const c = data?.conversation;
  return (
    <>
      <p><a href={`#/conversations/${kbId}`}>← Conversations</a></p>
      <h1>Conversation</h1>
      <Notice error={error} />
      {c && (
        <>
          <p class="muted">
            {SOURCES[c.conversation.source]} · started {formatDate(c.conversation.createdAt)} · {c.conversation.turnCount} questions ·{' '}
            {c.conversation.refusedCount} refused · <Feedback up={c.conversation.feedbackUp} down={c.conversation.feedbackDown} />
          </p>
          <ol class="transcript" aria-label="Transcript">
            {c.messages.map((m, i) => {
              const question = m.role === 'assistant' ? questionBefore(c.messages, i) : undefined;
              return (
              <li class={`msg ${m.role}`} data-role={m.role} data-refused={m.refused ? 'true' : undefined}>
                <div class="small muted">
                  {m.role === 'user' ? 'Question' : 'Answer'} · {formatDate(m.createdAt)}
                  {m.refused && <> · <span class="badge failed">Refused</span></>}
                  {m.feedback && <> · <span class={`badge ${m.feedback === 'up' ? 'ready' : 'failed'}`}>{m.feedback === 'up' ? 'Helpful' : 'Not helpful'}</span></>}
                </div>
                <p style="margin:4px 0;white-space:pre-wrap">{m.content}</p>
                {m.feedbackComment && <p class="small">Visitor's comment: “{m.feedbackComment}”</p>}
                {m.citations.length > 0 && (
                  <details>
                    <summary>Sources ({m.citations.length})</summary>
                    <ol class="sources">
                      {m.citations.map((s) => (
                        <li data-source-type={s.sourceType}>
                          {s.sourceType === 'annotation' ? (
                            <strong>[{s.marker}] <a href={`#/annotations/${kbId}`}>Curated answer: {s.title}</a></strong>
                          ) : (
                            <strong>[{s.marker}] <a href={`#/kbs/${kbId}/doc/${s.docId}/chunk/${s.chunkId}`} aria-label={`Open the cited chunk of ${s.filename}`}>{s.filename}</a></strong>
                          )}
                          {s.page ? ` · p. ${s.page}` : ''}{s.heading ? ` · ${s.heading}` : ''} · score {s.score.toFixed(3)}
                          <div class="small">{s.snippet}</div>
                        </li>
                      ))}
                    </ol>
                  </details>
                )}
                {question && <GiveAnswer kbId={kbId} question={question.content} from="conversation" messageId={m.id} label={`Give the right answer: ${question.content.slice(0, 80)}`} />}
                {question && (
                  <SaveAsTest
                    kbId={kbId}
                    messageId={question.id}
                    source="conversation"
                    expectDocument={m.refused ? undefined : m.citations[0]?.filename}
                    label={`Save as test: ${question.content.slice(0, 80)}`}
                  />
                )}
              </li>
              );
            })}
          </ol>
        </>
      )}
    </>
  );
}

export function UnansweredView({ kbId }: { kbId?: string | undefined }) {
  const { picker, empty } = useKb(kbId, '/unanswered');
  const [range, setRange] = useState<{ from?: string; to?: string }>({});
  const { data, error } = useLoad(async () => (kbId ? gql(Unanswered, { kbId, ...range }) : null), [kbId, range.from, range.to]);
  const u = data?.unansweredQuestions;
  return (
    <>
      <h1>Unanswered questions</h1>
      <p class="muted">
        Questions this knowledge base refused, answered with little support, or whose answer a visitor rated not helpful, grouped by meaning. Add a document that answers them, or give the right answer; a question answered well since leaves the list.
      </p>
      {empty && <p class="muted">Create a knowledge base first.</p>}
      <div class="card row">
        {picker}
        <div>
          <label for="un-from">From</label>
          <input id="un-from" type="date" value={range.from ?? ''} onChange={(e) => setRange((r) => ({ ...r, from: e.currentTarget.value || undefined }))} />
        </div>
        <div>
          <label for="un-to">To</label>
          <input id="un-to" type="date" value={range.to ?? ''} onChange={(e) => setRange((r) => ({ ...r, to: e.currentTarget.value || undefined }))} />
        </div>
      </div>
      <Notice error={error} />
      {u && u.groups.length === 0 && <p class="muted" role="status">Nothing unanswered in this range.</p>}
      <ol class="groups" aria-label="Unanswered question groups">
        {u?.groups.map((g) => (
          <li class="card" data-group={g.question}>
            <h2 style="margin-top:0">{g.question}</h2>
            <p class="small muted">
              Asked {g.count} {g.count === 1 ? 'time' : 'times'} ({g.refusedCount} refused{g.ratedDownCount ? `, ${g.ratedDownCount} rated not helpful` : ''}) · last {formatDate(g.lastAskedAt)}
            </p>
            <ul>
              {g.questions.map((q) => (
                <li>
                  <a href={`#/conversations/${kbId}/${q.sessionId}`}>{q.text}</a>{' '}
                  <span class="small muted">· {formatDate(q.askedAt)} · {q.refused ? 'refused' : `support ${(q.support ?? 0).toFixed(2)}`}{q.ratedDown ? ' · rated not helpful' : ''}</span>
                </li>
              ))}
            </ul>
            {kbId && g.questions[0] && <SaveAsTest kbId={kbId} messageId={g.questions[0].messageId} source="unanswered" label={`Save as test: ${g.question.slice(0, 80)}`} />}
            {kbId && <GiveAnswer kbId={kbId} question={g.question} from="unanswered" messageId={g.questions[0]?.messageId} label={`Give the right answer: ${g.question.slice(0, 80)}`} />}
          </li>
        ))}
      </ol>
    </>
  );
}

const dayIso = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);

export function ActivityView() {
  const kbs = useLoad(() => gql(KbList), []);
  const [kbId, setKbId] = useState('');
  const [range, setRange] = useState({ from: dayIso(29), to: dayIso(0) });
  const { data, error } = useLoad(() => gql(ActivityQuery, { ...(kbId ? { kbId } : {}), ...range }), [kbId, range.from, range.to]);
  const a = data?.activity;
  const name = (k: { kbId: string; kbName: string | null }) => k.kbName ?? `Deleted (${k.kbId})`;
  return (
    <>
      <h1>Activity</h1>
      <div class="card row">
        <div>
          <label for="act-kb">Knowledge base</label>
          <select id="act-kb" value={kbId} onChange={(e) => setKbId(e.currentTarget.value)}>
            <option value="">All</option>
            {kbs.data?.knowledgeBases.map((k) => <option value={k.id}>{k.name}</option>)}
          </select>
        </div>
        <div>
          <label for="act-from">From</label>
          <input id="act-from" type="date" value={range.from} onChange={(e) => e.currentTarget.value && setRange((r) => ({ ...r, from: e.currentTarget.value }))} />
        </div>
        <div>
          <label for="act-to">To</label>
          <input id="act-to" type="date" value={range.to} onChange={(e) => e.currentTarget.value && setRange((r) => ({ ...r, to: e.currentTarget.value }))} />
        </div>
        {[7, 30, 90].map((n) => (
          <button type="button" onClick={() => setRange({ from: dayIso(n - 1), to: dayIso(0) })}>Last {n} days</button>
        ))}
      </div>
      <Notice error={error} />
      {a && (
        <>
          <p data-testid="activity-total">
            <strong>{a.total.questions}</strong> questions · <strong>{a.total.answered}</strong> answered · <strong>{a.total.refused}</strong> refused ·{' '}
            <strong>{a.total.feedbackUp}</strong> rated helpful · <strong>{a.total.feedbackDown}</strong> not helpful
          </p>
          <div class="card">
            <h2 style="margin-top:0">Questions per day</h2>
            <p class="small legend"><span class="swatch answered" /> answered <span class="swatch refused" /> refused</p>
            <DailyChart days={a.days} label={`Questions per day from ${a.from} to ${a.to}: ${a.total.answered} answered, ${a.total.refused} refused`} />
          </div>
          <div class="table-wrap card" tabIndex={0} role="region" aria-label="Per knowledge base table">
            <table aria-label="Per knowledge base">
              <thead><tr><th>Knowledge base</th><th>Questions</th><th>Answered</th><th>Refused</th><th>Helpful</th><th>Not helpful</th></tr></thead>
              <tbody>
                {a.knowledgeBases.map((k) => (
                  <tr><td>{name(k)}</td><td>{k.questions}</td><td>{k.answered}</td><td>{k.refused}</td><td>{k.feedbackUp}</td><td>{k.feedbackDown}</td></tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </>
  );
}

export function CuratedAnswersView({ kbId }: { kbId?: string | undefined }) {
  const { picker } = useKb(kbId, '/annotations');
  return <AnnotationsView kbId={kbId} picker={picker} />;
}
