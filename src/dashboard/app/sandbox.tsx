/**
 * Sandbox: ask a KB a question as a chat (session memory), see the numbered citations, open one, and
 * beside the answer what the answer path itself decided: its refusal gate's verdict and why, and the
 * passages it judged, with the very scores their citations carry (the chatStream `decision`, not a
 * second retrieval). Recent questions are kept per KB in this browser, across visits; top_k values can be compared.
 * Past conversations of the KB (widget's included) can be browsed and continued.
 * The answer streams in through the chatStream subscription (SSE), piece by piece; its markers link
 * to the retrieved sources as they arrive, and to the sources it actually cites once it is done.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { gql, gqlStream, type ResultOf } from './gql';
import { ChatMessages, ChatStream, Conversations, CreateEvalCase, KbList, Retrieve } from './queries';
import { errorMessage, formatDate, Notice, useLoad } from './ui';
import { org } from './session';

type Citation = NonNullable<ResultOf<typeof ChatStream>['chatStream']['citations']>[number];
/** `pieces` counts the streamed deltas (exposed as data-pieces, so a test can see the answer arrive in parts). */
type Message = { role: string; content: string; citations: readonly Citation[]; streaming?: boolean; pieces?: number };
type Decision = NonNullable<ResultOf<typeof ChatStream>['chatStream']['decision']>;
type Reason = Decision['reason'];
/** One question of this visit: what was asked, what retrieval read, what the answer path decided. */
type Asked = { id: number; question: string; query: string; decision: Decision | null; declinedByModel: boolean };

const REASONS: Record<Reason, string> = {
  relevant: 'Relevant passages found: the answer is written from them.',
  no_passages: 'Nothing relevant enough: this knowledge base has no passages to search yet.',
  nothing_relevant: 'Nothing relevant enough: no retrieved passage shares a word with the question, and none is close enough in meaning. The assistant declines to answer.',
  not_covered: 'Nothing relevant enough: no passage holds what the question asks about, so the assistant declines rather than guess.',
  annotation: 'A curated answer matches this question: it is the answer, before any document is searched.',
};

function Verdict({ decision, declinedByModel }: { decision: Pick<Decision, 'answered' | 'reason'>; declinedByModel?: boolean }) {
  if (!decision.answered) return <p class="notice bad decision" data-testid="verdict">{REASONS[decision.reason]}</p>;
  if (declinedByModel) return <p class="notice bad decision" data-testid="verdict">The passages passed the relevance check, but the model found no answer in them and declined.</p>;
  return <p class="notice ok decision" data-testid="verdict">{REASONS.relevant}</p>;
}

let askedSeq = 0;

/**
 * Recent questions stay in this browser's localStorage, per organisation and KB, so the Sandbox
 * remembers them across visits (and only here: they are the administrator's scratch pad, not data).
 * Bounded: the newest HISTORY_MAX questions, each passage's text cut as the panel shows it.
 */
const HISTORY_MAX = 30;
const historyKey = (kbId: string) => `gw-sandbox-history:${org.value?.id ?? ''}:${kbId}`;
function loadHistory(kbId: string): Asked[] {
  try {
    const stored = JSON.parse(localStorage.getItem(historyKey(kbId)) ?? '[]') as Asked[];
    if (!Array.isArray(stored)) return [];
    for (const h of stored) askedSeq = Math.max(askedSeq, h.id);
    return stored;
  } catch {
    return [];
  }
}
function saveHistory(kbId: string, history: Asked[]) {
  const settled = history.filter((h) => h.decision).slice(0, HISTORY_MAX);
  const cut = settled.map((h) => ({ ...h, decision: { ...h.decision!, passages: h.decision!.passages.map((p) => ({ ...p, text: p.text.slice(0, 301) })) } }));
  try {
    localStorage.setItem(historyKey(kbId), JSON.stringify(cut));
  } catch {
    // Storage full or blocked (private mode): the history lasts this visit.
  }
}

/**
 * "Save as test": the question becomes a case of the KB's test set (Evals). An answered question
 * expects the document of its first passage again; "not answerable" expects a refusal.
 */
function SaveAsTest({ kbId, asked }: { kbId: string; asked: Asked }) {
  const [unanswerable, setUnanswerable] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const top = asked.decision?.answered && !asked.declinedByModel ? asked.decision.passages[0]?.filename : undefined;
  return (
    <form class="row" aria-label="Save as test" onSubmit={async (e) => {
      e.preventDefault();
      try {
        await gql(CreateEvalCase, { input: { kbId, question: asked.question, source: 'sandbox', answerable: !unanswerable, ...(top && !unanswerable ? { documents: [top] } : {}) } });
        setSaved(unanswerable ? 'Saved as a test the knowledge base should refuse.' : `Saved as a test${top ? ` expecting ${top}` : ''}.`);
        setError(null);
      } catch (err) {
        setError(errorMessage(err));
      }
    }}>
      <label><input type="checkbox" checked={unanswerable} onChange={(e) => setUnanswerable(e.currentTarget.checked)} /> Not answerable</label>
      <button type="submit" disabled={saved !== null}>Save as test</button>
      <Notice error={error} ok={saved} />
    </form>
  );
}

/** The same question retrieved at two top_k values, each with the answer path's gate verdict. */
function CompareTopK({ kbId, query }: { kbId: string; query: string }) {
  const [a, setA] = useState('3');
  const [b, setB] = useState('10');
  const [result, setResult] = useState<Array<{ k: number; r: ResultOf<typeof Retrieve>['retrieve'] }> | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <div class="card">
      <h2 style="margin-top:0">Compare top_k</h2>
      <p class="small muted">Retrieval for “{query}” at two sizes, each judged by the same refusal gate as the answer.</p>
      <form class="row" onSubmit={async (e) => {
        e.preventDefault();
        try {
          const ks = [Number(a), Number(b)];
          setResult(await Promise.all(ks.map(async (k) => ({ k, r: (await gql(Retrieve, { kbId, query, topK: k })).retrieve }))));
          setError(null);
        } catch (err) {
          setError(errorMessage(err));
        }
      }}>
        <div><label for="topk-a">top_k A</label><input id="topk-a" type="number" min={1} max={50} value={a} onInput={(e) => setA(e.currentTarget.value)} style="width:80px" /></div>
        <div><label for="topk-b">top_k B</label><input id="topk-b" type="number" min={1} max={50} value={b} onInput={(e) => setB(e.currentTarget.value)} style="width:80px" /></div>
        <button type="submit">Compare</button>
      </form>
      <Notice error={error} />
      {result && (
        <div class="compare">
          {result.map(({ k, r }) => (
            <div data-testid={`topk-${k}`}>
              <h3>top_k {k}</h3>
              <Verdict decision={{ answered: r.confident, reason: r.reason }} />
              <ol style="padding-left:20px" aria-label={`Passages at top_k ${k}`}>
                {r.passages.map((p) => (
                  <li class="passage"><strong>{p.filename}</strong><div class="small">score {p.score.toFixed(3)}</div></li>
                ))}
              </ol>
            </div>
          ))}
        </div>
      )}
    </div>
  );
}

function AnswerText({ m, onCite }: { m: Message; onCite: (c: Citation) => void }) {
  // Citation markers like [1] become buttons that open the cited passage.
  const parts = m.content.split(/(\[\d+\])/g);
  return (
    <p style="margin:0;white-space:pre-wrap">
      {parts.map((p) => {
        const n = /^\[(\d+)\]$/.exec(p)?.[1];
        const c = n ? m.citations.find((x) => x.marker === Number(n)) : undefined;
        return c ? (
          <button type="button" class="cite" aria-label={`Source ${c.marker}: ${c.filename}`} onClick={() => onCite(c)}>
            {c.marker}
          </button>
        ) : (
          p
        );
      })}
    </p>
  );
}

function ConversationList({ kbId, reloadKey, onOpen }: { kbId: string; reloadKey: number; onOpen: (id: string) => void }) {
  const { data, error, setData } = useLoad(() => gql(Conversations, { kbId }), [kbId, reloadKey]);
  const page = data?.conversations;
  return (
    <div class="card">
      <h2 style="margin-top:0">Past conversations</h2>
      <Notice error={error} />
      {page && page.nodes.length === 0 && <p class="muted">None yet.</p>}
      <ul style="padding-left:18px">
        {page?.nodes.map((c) => (
          <li>
            <button type="button" class="link" onClick={() => onOpen(c.id)}>{c.firstQuestion ?? '(no question)'}</button>
            <div class="small muted">{c.messageCount} messages · {formatDate(c.updatedAt)}</div>
          </li>
        ))}
      </ul>
      {page?.nextCursor && (
        <button type="button" onClick={async () => {
          const r = await gql(Conversations, { kbId, after: page.nextCursor });
          setData({ conversations: { nodes: [...page.nodes, ...r.conversations.nodes], nextCursor: r.conversations.nextCursor } });
        }}>Older conversations</button>
      )}
    </div>
  );
}

export function SandboxView({ kbId: routeKb }: { kbId?: string | undefined }) {
  const kbs = useLoad(() => gql(KbList), []);
  const [kbId, setKbId] = useState(routeKb ?? '');
  const [sessionId, setSessionId] = useState<string | null>(null);
  const [messages, setMessages] = useState<Message[]>([]);
  const [question, setQuestion] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [history, setHistory] = useState<Asked[]>([]);
  const [shown, setShown] = useState<number | null>(null);
  const current = history.find((h) => h.id === shown) ?? null;
  const setPassages = (_: null) => setShown(null);
  const [open, setOpen] = useState<Citation | null>(null);
  const [reloadKey, setReloadKey] = useState(0);

  useEffect(() => {
    if (!kbId && kbs.data?.knowledgeBases[0]) setKbId(kbs.data.knowledgeBases[0].id);
  }, [kbs.data]);

  // The history shown is the chosen KB's; it is saved only under the KB it was loaded for.
  const historyOf = useRef('');
  useEffect(() => {
    historyOf.current = kbId;
    setHistory(kbId ? loadHistory(kbId) : []);
    setShown(null);
  }, [kbId]);
  useEffect(() => {
    if (kbId && historyOf.current === kbId) saveHistory(kbId, history);
  }, [history]);

  const inFlight = useRef<AbortController | null>(null);
  useEffect(() => () => inFlight.current?.abort(), []);
  const reset = () => (inFlight.current?.abort(), setSessionId(null), setMessages([]), setPassages(null), setOpen(null));

  /** Replaces the last message (the answer being streamed). */
  const updateAnswer = (fn: (m: Message) => Message) => setMessages((ms) => [...ms.slice(0, -1), fn(ms[ms.length - 1]!)]);

  const ask = async () => {
    const q = question.trim();
    if (!q || !kbId) return;
    const abort = new AbortController();
    inFlight.current = abort;
    setBusy(true);
    setError(null);
    setMessages((m) => [...m, { role: 'user', content: q, citations: [] }]);
    setQuestion('');
    const entry: Asked = { id: ++askedSeq, question: q, query: q, decision: null, declinedByModel: false };
    const patchEntry = (p: Partial<Asked>) => setHistory((h) => h.map((x) => (x.id === entry.id ? { ...x, ...p } : x)));
    setHistory((h) => [entry, ...h]);
    setShown(entry.id);
    try {
      let started = false;
      for await (const { chatStream: e } of gqlStream(ChatStream, { kbId, message: q, ...(sessionId ? { sessionId } : {}) }, abort.signal)) {
        if (e.type === 'session') {
          setSessionId(e.sessionId);
          if (e.query) patchEntry({ query: e.query });
          setMessages((m) => [...m, { role: 'assistant', content: '', citations: [], streaming: true, pieces: 0 }]);
          started = true;
        } else if (!started) continue;
        else if (e.type === 'citations') {
          updateAnswer((m) => ({ ...m, citations: e.citations ?? [] }));
          // The answer path's own decision: what the panel shows, so it cannot disagree with the answer.
          patchEntry({ decision: e.decision ?? null });
        } else if (e.type === 'delta') updateAnswer((m) => ({ ...m, content: m.content + (e.text ?? ''), pieces: (m.pieces ?? 0) + 1 }));
        else if (e.type === 'done') {
          updateAnswer((m) => ({ ...m, content: e.answer ?? m.content, citations: e.citations ?? [], streaming: false }));
          patchEntry({ declinedByModel: (e.citations ?? []).length === 0 });
        }
      }
      setReloadKey((k) => k + 1);
    } catch (err) {
      if (!abort.signal.aborted) setError(errorMessage(err));
      setMessages((ms) => ms.map((m) => (m.streaming ? { ...m, streaming: false } : m)));
    } finally {
      if (inFlight.current === abort) {
        inFlight.current = null;
        setBusy(false);
      }
    }
  };

  return (
    <>
      <h1>Sandbox</h1>
      <div class="row">
        <div>
          <label for="sandbox-kb">Knowledge base</label>
          <select id="sandbox-kb" value={kbId} onChange={(e) => (setKbId(e.currentTarget.value), reset())}>
            {kbs.data?.knowledgeBases.map((k) => <option value={k.id}>{k.name}</option>)}
          </select>
        </div>
        <button type="button" onClick={reset}>New conversation</button>
      </div>
      {kbs.data && kbs.data.knowledgeBases.length === 0 && <p class="muted">Create a knowledge base first.</p>}
      <div class="grid2" style="margin-top:16px">
        <div>
          {/* aria-busy holds the announcement until the streamed answer is complete. */}
          <div class="card" aria-live="polite" aria-busy={busy}>
            <h2 style="margin-top:0">Conversation{sessionId ? '' : ' (new)'}</h2>
            {messages.length === 0 && <p class="muted">Ask a question as a visitor would. The answer cites its sources with numbers.</p>}
            {messages.map((m) => (
              <div class={`msg ${m.role}`} data-role={m.role} data-streaming={m.streaming ? 'true' : undefined} data-pieces={m.pieces}>
                <div class="small muted">{m.role === 'user' ? 'Question' : 'Answer'}</div>
                {m.role === 'assistant' ? <AnswerText m={m} onCite={setOpen} /> : <p style="margin:0">{m.content}</p>}
              </div>
            ))}
            {busy && messages[messages.length - 1]?.role === 'user' && <p class="muted" role="status">Answering…</p>}
            <Notice error={error} />
            <form onSubmit={(e) => (e.preventDefault(), void ask())}>
              <label for="sandbox-question">Question</label>
              <textarea id="sandbox-question" rows={2} style="width:100%" value={question} onInput={(e) => setQuestion(e.currentTarget.value)}
                onKeyDown={(e) => { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); void ask(); } }} />
              <button class="primary" type="submit" disabled={busy || !kbId}>Ask</button>
            </form>
          </div>
          {open && (
            <div class="card" role="region" aria-label={`Source ${open.marker}`} data-testid="citation">
              <div class="row" style="justify-content:space-between">
                <h2 style="margin:0">Source {open.marker}: {open.filename}</h2>
                <button type="button" onClick={() => setOpen(null)}>Close</button>
              </div>
              <p class="small muted">
                {open.heading ? `${open.heading} · ` : ''}{open.page ? `page ${open.page} · ` : ''}{open.url ? <a href={open.url} target="_blank" rel="noopener noreferrer">{open.url}</a> : ''} score {open.score.toFixed(3)}
              </p>
              <blockquote style="margin:0;white-space:pre-wrap">{open.snippet}</blockquote>
            </div>
          )}
        </div>
        <div>
          <div class="card">
            <h2 style="margin-top:0">What the answer path decided</h2>
            {!current && <p class="muted">After a question: whether the assistant found something relevant enough to answer, and the passages it judged, best first, with their scores.</p>}
            {current && (
              <>
                <p class="small muted">“{current.question}”{current.query !== current.question ? ` — retrieval read it as “${current.query}”` : ''}</p>
                {current.decision && !busy && <Verdict decision={current.decision} declinedByModel={current.declinedByModel} />}
                {current.decision && !busy && kbId && <SaveAsTest key={current.id} kbId={kbId} asked={current} />}
                {current.decision && current.decision.passages.length > 0 && (
                  <p class="small muted">
                    {current.decision.answered ? 'The answer may cite these; the numbers are its citation numbers.' : 'Retrieved but not used: none was relevant enough.'} Scores rank passages
                    within this question (fused lexical and vector); they are not comparable across questions.
                  </p>
                )}
              </>
            )}
            <ol style="padding-left:20px" aria-label="Retrieved passages">
              {current?.decision?.passages.map((p) => (
                <li class="passage" data-used={current.decision!.answered ? 'true' : 'false'}>
                  <strong>[{p.marker}] {p.filename}</strong>{p.page ? ` · p. ${p.page}` : ''}{p.heading ? ` · ${p.heading}` : ''}
                  <div class="small">score {p.score.toFixed(3)} · lexical {p.lexicalScore.toFixed(3)} · vector {p.vectorScore.toFixed(3)}</div>
                  <p>{p.text.length > 300 ? `${p.text.slice(0, 300)}…` : p.text}</p>
                </li>
              ))}
            </ol>
          </div>
          {history.length > 0 && (
            <div class="card">
              <div class="row" style="justify-content:space-between">
                <h2 style="margin:0">Recent questions</h2>
                <button type="button" class="link" onClick={() => (setHistory([]), setShown(null))}>Clear</button>
              </div>
              <ol class="history" aria-label="Recently asked" style="padding-left:20px">
                {history.map((h) => (
                  <li>
                    <button type="button" class="link" aria-current={h.id === shown ? 'true' : undefined} onClick={() => setShown(h.id)}>{h.question}</button>{' '}
                    <span class={`badge ${!h.decision ? 'processing' : h.decision.answered && !h.declinedByModel ? 'ready' : 'failed'}`}>
                      {!h.decision ? 'asking' : h.decision.answered && !h.declinedByModel ? 'answered' : 'declined'}
                    </span>
                  </li>
                ))}
              </ol>
            </div>
          )}
          {current && kbId && <CompareTopK key={current.id} kbId={kbId} query={current.query} />}
          {kbId && (
            <ConversationList kbId={kbId} reloadKey={reloadKey} onOpen={async (id) => {
              try {
                const r = await gql(ChatMessages, { kbId, sessionId: id });
                setSessionId(id);
                setMessages(r.chatMessages.map((m) => ({ role: m.role, content: m.content, citations: m.citations })));
                setPassages(null);
                setOpen(null);
              } catch (err) {
                setError(errorMessage(err));
              }
            }} />
          )}
        </div>
      </div>
    </>
  );
}
