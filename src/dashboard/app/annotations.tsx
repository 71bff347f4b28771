/**
 * Curated answers: "Give the right answer" on an Unanswered group or a conversation turn stores a
 * question and its answer, which then answer matching questions of the KB before retrieval (the
 * widget, the API, voice). The Annotations view lists a KB's curated answers, to edit and switch.
 */
import { useState } from 'preact/hooks';
import { gql, type ResultOf } from './gql';
import { AnnotationList, CreateAnnotation, DeleteAnnotation, UpdateAnnotation } from './queries';
import { errorMessage, formatDate, Notice, useLoad } from './ui';

/** A button that opens a form with the question (editable) and the right answer to give. */
export function GiveAnswer(props: { kbId: string; question: string; from: 'conversation' | 'unanswered'; messageId?: string | undefined; label: string }) {
  const [open, setOpen] = useState(false);
  const [question, setQuestion] = useState(props.question);
  const [answer, setAnswer] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!open) {
    return (
      <p>
        <button type="button" aria-label={props.label} disabled={saved !== null} onClick={() => setOpen(true)}>Give the right answer</button>
        <Notice ok={saved} />
      </p>
    );
  }
  const id = `give-${props.messageId ?? props.question.slice(0, 20).replace(/\W+/g, '-')}`;
  return (
    <form class="card give-answer" aria-label={props.label} onSubmit={async (e) => {
      e.preventDefault();
      setBusy(true);
      try {
        await gql(CreateAnnotation, { kbId: props.kbId, question, answer, from: props.from, ...(props.messageId ? { messageId: props.messageId } : {}) });
        setSaved('Saved: this answer now answers the question, shown as a curated source.');
        setError(null);
        setOpen(false);
      } catch (err) {
        setError(errorMessage(err));
      } finally {
        setBusy(false);
      }
    }}>
      <label for={`${id}-q`}>Question</label>
      <input id={`${id}-q`} required value={question} onInput={(e) => setQuestion(e.currentTarget.value)} style="width:100%" />
      <label for={`${id}-a`}>The right answer</label>
      <textarea id={`${id}-a`} required rows={4} value={answer} onInput={(e) => setAnswer(e.currentTarget.value)} style="width:100%" />
      <div class="row">
        <button class="primary" type="submit" disabled={busy}>Save answer</button>
        <button type="button" onClick={() => setOpen(false)}>Cancel</button>
      </div>
      <Notice error={error} />
    </form>
  );
}

type Annotation = ResultOf<typeof AnnotationList>['annotations'][number];

function AnnotationItem({ a, onChange, onDelete }: { a: Annotation; onChange: (a: Annotation) => void; onDelete: () => void }) {
  const [editing, setEditing] = useState(false);
  const [question, setQuestion] = useState(a.question);
  const [answer, setAnswer] = useState(a.answer);
  const [error, setError] = useState<string | null>(null);
  const save = async (vars: { question?: string; answer?: string; enabled?: boolean }) => {
    try {
      onChange((await gql(UpdateAnnotation, { kbId: a.kbId, id: a.id, ...vars })).updateAnnotation);
      setError(null);
      setEditing(false);
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  return (
    <li class={`card${a.enabled ? '' : ' off'}`} data-annotation={a.question}>
      {editing ? (
        <form onSubmit={(e) => (e.preventDefault(), void save({ question, answer }))}>
          <label for={`q-${a.id}`}>Question</label>
          <input id={`q-${a.id}`} required value={question} onInput={(e) => setQuestion(e.currentTarget.value)} style="width:100%" />
          <label for={`a-${a.id}`}>Answer</label>
          <textarea id={`a-${a.id}`} required rows={4} value={answer} onInput={(e) => setAnswer(e.currentTarget.value)} style="width:100%" />
          <div class="row"><button class="primary" type="submit">Save</button><button type="button" onClick={() => setEditing(false)}>Cancel</button></div>
        </form>
      ) : (
        <>
          <h2 style="margin-top:0">{a.question}</h2>
          <p style="white-space:pre-wrap">{a.answer}</p>
        </>
      )}
      <p class="small muted">
        Given by {a.createdBy} · {formatDate(a.createdAt)}{a.updatedAt !== a.createdAt ? ` · changed ${formatDate(a.updatedAt)}` : ''}
        {!a.enabled && <> · <span class="badge failed">switched off</span></>}
      </p>
      <div class="row">
        <label><input type="checkbox" role="switch" checked={a.enabled} aria-label={`Enabled: ${a.question}`} onChange={(e) => void save({ enabled: e.currentTarget.checked })} /> Enabled</label>
        {!editing && <button type="button" onClick={() => setEditing(true)} aria-label={`Edit ${a.question}`}>Edit</button>}
        <button type="button" class="danger" aria-label={`Delete ${a.question}`} onClick={async () => {
          try {
            await gql(DeleteAnnotation, { kbId: a.kbId, id: a.id });
            onDelete();
          } catch (err) {
            setError(errorMessage(err));
          }
        }}>Delete</button>
      </div>
      <Notice error={error} />
    </li>
  );
}

/** A KB's curated answers, newest first, each editable and switchable. */
export function AnnotationsView({ kbId, picker }: { kbId?: string | undefined; picker: preact.JSX.Element }) {
  const [patched, setPatched] = useState<Record<string, Annotation | null>>({});
  const { data, error } = useLoad(async () => (kbId ? gql(AnnotationList, { kbId }) : null), [kbId]);
  const list = (data?.annotations ?? []).map((a) => (a.id in patched ? patched[a.id] : a)).filter((a): a is Annotation => !!a);
  return (
    <>
      <h1>Curated answers</h1>
      <p class="muted">Answers given with “Give the right answer”. An enabled one answers the questions of this knowledge base that match its question, before any document, and is shown as a curated source.</p>
      <div class="card row">{picker}</div>
      <Notice error={error} />
      {data && list.length === 0 && <p class="muted" role="status">No curated answers yet: give one from Unanswered or a conversation.</p>}
      <ol class="groups" aria-label="Curated answers">
        {list.map((a) => (
          <AnnotationItem key={a.id} a={a} onChange={(n) => setPatched((p) => ({ ...p, [n.id]: n }))} onDelete={() => setPatched((p) => ({ ...p, [a.id]: null }))} />
        ))}
      </ol>
    </>
  );
}
