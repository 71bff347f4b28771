/** Knowledge Bases: list with document counts; create, rename/describe, delete with confirmation. */
import { useState } from 'preact/hooks';
import { gql, type ResultOf } from './gql';
import { CreateKb, DeleteKb, KbList, UpdateKb } from './queries';
import { may } from './session';
import { Confirm, errorMessage, Notice, useLoad } from './ui';

type Kb = ResultOf<typeof KbList>['knowledgeBases'][number];

function KbEditor({ kb, onDone }: { kb: Kb; onDone: () => void }) {
  const [name, setName] = useState(kb.name);
  const [description, setDescription] = useState(kb.description ?? '');
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          await gql(UpdateKb, { input: { id: kb.id, name, description } });
          onDone();
        } catch (err) {
          setError(errorMessage(err));
        }
      }}
    >
      <div class="row">
        <div class="grow">
          <label for={`name-${kb.id}`}>Name</label>
          <input id={`name-${kb.id}`} value={name} required onInput={(e) => setName(e.currentTarget.value)} style="width:100%" />
        </div>
        <div class="grow">
          <label for={`desc-${kb.id}`}>Description</label>
          <input id={`desc-${kb.id}`} value={description} onInput={(e) => setDescription(e.currentTarget.value)} style="width:100%" />
        </div>
        <button class="primary" type="submit">Save</button>
        <button type="button" onClick={onDone}>Cancel</button>
      </div>
      <Notice error={error} />
    </form>
  );
}

export function KbListView() {
  const { data, error, reload } = useLoad(() => gql(KbList), []);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Kb | null>(null);
  return (
    <>
      <h1>Knowledge Bases</h1>
      <Notice error={error} />
      <div class="card">
        <h2 style="margin-top:0">New knowledge base</h2>
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            try {
              const { createKnowledgeBase } = await gql(CreateKb, { input: { name, ...(description ? { description } : {}) } });
              setName('');
              setDescription('');
              setFormError(null);
              location.hash = `#/kbs/${createKnowledgeBase.id}`;
            } catch (err) {
              setFormError(errorMessage(err));
            }
          }}
        >
          <div class="row">
            <div class="grow">
              <label for="kb-name">Name</label>
              <input id="kb-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} style="width:100%" />
            </div>
            <div class="grow">
              <label for="kb-description">Description (optional)</label>
              <input id="kb-description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} style="width:100%" />
            </div>
            <button class="primary" type="submit">Create</button>
          </div>
          <Notice error={formError} />
        </form>
      </div>
      <div class="card table-wrap">
        {data && data.knowledgeBases.length === 0 && <p class="muted">No knowledge base yet: create one above, then add documents to it.</p>}
        {data && data.knowledgeBases.length > 0 && (
          <table>
            <thead>
              <tr><th>Name</th><th>Documents</th><th>Widget</th><th><span class="skip">Actions</span></th></tr>
            </thead>
            <tbody>
              {data.knowledgeBases.map((kb) =>
                editing === kb.id ? (
                  <tr><td colSpan={4}><KbEditor kb={kb} onDone={() => (setEditing(null), void reload())} /></td></tr>
                ) : (
                  <tr>
                    <td class="name" data-label="Name">
                      <a href={`#/kbs/${kb.id}`}>{kb.name}</a>
                      {kb.description && <div class="small muted">{kb.description}</div>}
                    </td>
                    <td data-label="Documents">{kb.docCount}</td>
                    <td data-label="Widget">{kb.widgetEnabled ? 'on' : 'off'}</td>
                    <td data-label="Actions"><div class="row">
                      <button type="button" onClick={() => setEditing(kb.id)} aria-label={`Edit ${kb.name}`} title="Rename or describe">Edit</button>
                      {may('kb.delete') && <button type="button" class="danger" onClick={() => setDeleting(kb)} aria-label={`Delete ${kb.name}`}>Delete</button>}
                    </div></td>
                  </tr>
                ),
              )}
            </tbody>
          </table>
        )}
      </div>
      {deleting && (
        <Confirm
          title={`Delete “${deleting.name}”?`}
          confirmLabel="Delete knowledge base"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            // A failure is thrown to the dialog, which stays open and says why.
            await gql(DeleteKb, { id: deleting.id });
            await reload();
          }}
          focusAfter={() => document.querySelector<HTMLElement>('main h1')}
        >
          <p>
            This deletes the knowledge base <strong>{deleting.name}</strong>, its {deleting.docCount} document{deleting.docCount === 1 ? '' : 's'}, their
            chunks and every conversation held with it. Sites embedding the widget for it stop answering. This cannot be undone.
          </p>
        </Confirm>
      )}
    </>
  );
}
