/**
 * A KB's documents: drag-and-drop upload (several files, each with its own progress), add a website,
 * status badges, retry/re-ingest/delete one or several, filter by status, keyset "load more", and
 * live status and progress from the documentUpdates subscription while something is processing
 * (the loaded pages are re-read when a document settles). And a document's chunks.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { gql, gqlStream, gqlUpload, type ResultOf } from './gql';
import { DeleteDocument, DocumentDetail, DocumentUpdates, IngestUrl, KbDocuments, ReingestDocument, UploadDocument } from './queries';
import { Confirm, errorMessage, formatDate, Notice, StatusBadge, useLoad } from './ui';

type Kb = ResultOf<typeof KbDocuments>['knowledgeBase'];
type Doc = Kb['documentPage']['nodes'][number];
type Upload = { id: number; name: string; progress: number; state: 'uploading' | 'done' | 'failed'; error?: string };
type Status = 'processing' | 'ready' | 'failed' | '';

const PAGE = 50;
const POLL_MS = 1500;
let uploadSeq = 0;

function DropZone({ kbId, onUploaded }: { kbId: string; onUploaded: () => void }) {
  const [over, setOver] = useState(false);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const input = useRef<HTMLInputElement>(null);
  const patch = (id: number, p: Partial<Upload>) => setUploads((list) => list.map((u) => (u.id === id ? { ...u, ...p } : u)));
  const send = (files: File[]) => {
    for (const file of files) {
      const id = ++uploadSeq;
      setUploads((list) => [...list, { id, name: file.name, progress: 0, state: 'uploading' }]);
      gqlUpload(UploadDocument, { kbId, file }, 'file', file, (p) => patch(id, { progress: p })).then(
        () => (patch(id, { state: 'done', progress: 1 }), onUploaded()),
        (err) => patch(id, { state: 'failed', error: errorMessage(err) }),
      );
    }
  };
  return (
    <div
      class={`drop${over ? ' over' : ''}`}
      data-testid="dropzone"
      onDragOver={(e) => (e.preventDefault(), setOver(true))}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        send([...(e.dataTransfer?.files ?? [])]);
      }}
    >
      <p>
        Drop PDF, DOCX, TXT or Markdown files here, or{' '}
        <button type="button" onClick={() => input.current?.click()}>choose files</button>
      </p>
      <input ref={input} type="file" multiple hidden accept=".pdf,.docx,.txt,.md,.markdown" aria-label="Files to upload" onChange={(e) => (send([...(e.currentTarget.files ?? [])]), (e.currentTarget.value = ''))} />
      {uploads.length > 0 && (
        <ul class="uploads" aria-label="Uploads">
          {uploads.map((u) => (
            <li data-upload={u.name}>
              <span>{u.name}</span>
              <progress max={1} value={u.progress} aria-label={`Upload of ${u.name}`} />
              <span class={u.state === 'failed' ? 'error-text' : 'muted'}>{u.state === 'uploading' ? `${Math.round(u.progress * 100)}%` : u.state === 'done' ? 'uploaded' : `failed: ${u.error}`}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function AddWebsite({ kbId, onAdded }: { kbId: string; onAdded: () => void }) {
  const [url, setUrl] = useState('');
  const [maxPages, setMaxPages] = useState('50');
  const [maxDepth, setMaxDepth] = useState('3');
  const [include, setInclude] = useState('');
  const [exclude, setExclude] = useState('');
  const [sitemap, setSitemap] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const list = (s: string) => s.split(/[\s,]+/).filter(Boolean);
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          await gql(IngestUrl, {
            input: { kbId, url, maxPages: Number(maxPages), maxDepth: Number(maxDepth), sitemap, ...(include ? { include: list(include) } : {}), ...(exclude ? { exclude: list(exclude) } : {}) },
          });
          setUrl('');
          setError(null);
          onAdded();
        } catch (err) {
          setError(errorMessage(err));
        }
      }}
    >
      <div class="row">
        <div class="grow">
          <label for="crawl-url">Website URL</label>
          <input id="crawl-url" type="url" required placeholder="https://docs.example.com/" value={url} onInput={(e) => setUrl(e.currentTarget.value)} style="width:100%" />
        </div>
        <div>
          <label for="crawl-pages">Max pages</label>
          <input id="crawl-pages" type="number" min={1} max={500} value={maxPages} onInput={(e) => setMaxPages(e.currentTarget.value)} style="width:90px" />
        </div>
        <div>
          <label for="crawl-depth">Max depth</label>
          <input id="crawl-depth" type="number" min={0} max={10} value={maxDepth} onInput={(e) => setMaxDepth(e.currentTarget.value)} style="width:90px" />
        </div>
      </div>
      <div class="row">
        <div class="grow">
          <label for="crawl-include">Include (glob patterns, optional)</label>
          <input id="crawl-include" placeholder="/docs/**" value={include} onInput={(e) => setInclude(e.currentTarget.value)} style="width:100%" />
        </div>
        <div class="grow">
          <label for="crawl-exclude">Exclude (glob patterns, optional)</label>
          <input id="crawl-exclude" placeholder="/blog/**" value={exclude} onInput={(e) => setExclude(e.currentTarget.value)} style="width:100%" />
        </div>
        <label class="inline"><input type="checkbox" checked={sitemap} onChange={(e) => setSitemap(e.currentTarget.checked)} /> Use sitemap.xml</label>
        <button class="primary" type="submit">Add website</button>
      </div>
      <Notice error={error} />
    </form>
  );
}

export function KbView({ kbId }: { kbId: string }) {
  const [status, setStatus] = useState<Status>('');
  const [kb, setKb] = useState<Kb | null>(null);
  const [docs, setDocs] = useState<Doc[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [confirm, setConfirm] = useState<Doc[] | null>(null);
  const [, tick] = useState(0);

  const vars = (first: number, after?: string | null) => ({ id: kbId, first, ...(after ? { after } : {}), ...(status ? { status } : {}) });
  /** Reloads everything already on screen (up to 200 rows) in one keyset query from the top. */
  const refresh = async (count = Math.max(PAGE, docs.length)) => {
    try {
      const r = await gql(KbDocuments, vars(Math.min(count, 200)));
      setKb(r.knowledgeBase);
      setDocs(r.knowledgeBase.documentPage.nodes);
      setCursor(r.knowledgeBase.documentPage.nextCursor ?? null);
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  useEffect(() => {
    setDocs([]);
    setSelected(new Set());
    void refresh(PAGE);
  }, [kbId, status]);

  const processing = (kb?.documentCounts.processing ?? 0) > 0;
  useEffect(() => {
    if (!processing) return;
    const abort = new AbortController();
    void (async () => {
      while (!abort.signal.aborted) {
        try {
          for await (const { documentUpdates } of gqlStream(DocumentUpdates, { kbId }, abort.signal)) {
            const byId = new Map(documentUpdates.map((d) => [d.id, d]));
            setDocs((list) => list.map((d) => byId.get(d.id) ?? d));
            tick((n) => n + 1);
            // A settled document changes the counts and maybe the filtered page: read it again.
            if (documentUpdates.some((d) => d.status !== 'processing')) void refresh();
          }
        } catch {
          // The stream broke (network, sign-out): the loop below reads the page and tries again.
        }
        if (abort.signal.aborted) return;
        await refresh();
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    })();
    return () => abort.abort();
  }, [processing, docs.length, status]);

  const act = async (list: Doc[], action: 'reingest' | 'delete') => {
    try {
      for (const d of list) await (action === 'delete' ? gql(DeleteDocument, { kbId, id: d.id }) : gql(ReingestDocument, { kbId, id: d.id }));
      setSelected(new Set());
      await refresh();
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const counts = kb?.documentCounts;
  const total = counts ? counts.processing + counts.ready + counts.failed : 0;
  const chosen = docs.filter((d) => selected.has(d.id));

  return (
    <>
      <p><a href="#/kbs">← Knowledge Bases</a></p>
      <h1>{kb?.name ?? 'Knowledge base'}</h1>
      {kb?.description && <p class="muted">{kb.description}</p>}
      <Notice error={error} />
      {counts && total > 0 && (
        <div class="card" aria-label="Ingestion progress">
          <div class="row" style="justify-content:space-between">
            <span>{counts.ready} of {total} ready</span>
            <span class="muted small">{counts.processing} processing · {counts.failed} failed</span>
          </div>
          <div class="meter" role="progressbar" aria-valuemin={0} aria-valuemax={total} aria-valuenow={counts.ready} aria-label="Documents ready">
            <span style={`width:${(100 * counts.ready) / total}%`} />
          </div>
        </div>
      )}
      <div class="grid2">
        <div class="card"><h2 style="margin-top:0">Upload files</h2><DropZone kbId={kbId} onUploaded={() => void refresh()} /></div>
        <div class="card"><h2 style="margin-top:0">Add a website</h2><AddWebsite kbId={kbId} onAdded={() => void refresh()} /></div>
      </div>
      <div class="card">
        <div class="row" style="justify-content:space-between">
          <h2 style="margin:0">Documents</h2>
          <div class="row">
            <label class="inline" for="status-filter">Status</label>
            <select id="status-filter" value={status} onChange={(e) => setStatus(e.currentTarget.value as Status)}>
              <option value="">All</option><option value="ready">Ready</option><option value="processing">Processing</option><option value="failed">Failed</option>
            </select>
            <button type="button" disabled={chosen.length === 0} onClick={() => void act(chosen, 'reingest')}>Re-ingest selected ({chosen.length})</button>
            <button type="button" class="danger" disabled={chosen.length === 0} onClick={() => setConfirm(chosen)}>Delete selected</button>
          </div>
        </div>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th><input type="checkbox" aria-label="Select all shown documents" checked={docs.length > 0 && chosen.length === docs.length} onChange={(e) => setSelected(e.currentTarget.checked ? new Set(docs.map((d) => d.id)) : new Set())} /></th>
                <th>Document</th><th>Status</th><th>Added</th><th><span class="skip">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {docs.map((d) => (
                <tr data-doc={d.filename}>
                  <td><input type="checkbox" aria-label={`Select ${d.filename}`} checked={selected.has(d.id)} onChange={(e) => { const s = new Set(selected); e.currentTarget.checked ? s.add(d.id) : s.delete(d.id); setSelected(s); }} /></td>
                  <td style="word-break:break-all"><a href={`#/kbs/${kbId}/doc/${d.id}`}>{d.filename}</a><div class="small muted">{d.source === 'url' ? 'website' : d.pages ? `${d.pages} pages` : ''}</div>{d.identity ? <div class="small" title={`What this document is about, read from ${d.identity.source ?? 'the document'}`}>{[d.identity.subject, d.identity.kind, d.identity.period].filter(Boolean).join(' · ')}</div> : null}</td>
                  <td>
                    <StatusBadge doc={d} />
                    {d.status === 'failed' && <div class="small error-text">{d.error}</div>}
                  </td>
                  <td class="small">{formatDate(d.createdAt)}</td>
                  <td><div class="row">
                    <button type="button" onClick={() => void act([d], 'reingest')} aria-label={`${d.status === 'failed' ? 'Retry' : 'Re-ingest'} ${d.filename}`}>{d.status === 'failed' ? 'Retry' : 'Re-ingest'}</button>
                    <button type="button" class="danger" onClick={() => setConfirm([d])} aria-label={`Delete ${d.filename}`}>Delete</button>
                  </div></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {docs.length === 0 && <p class="muted">{status ? `No ${status} documents.` : 'No documents yet: drop files above or add a website.'}</p>}
        {cursor && (
          <p>
            <button type="button" onClick={async () => {
              const r = await gql(KbDocuments, vars(PAGE, cursor));
              setDocs([...docs, ...r.knowledgeBase.documentPage.nodes]);
              setCursor(r.knowledgeBase.documentPage.nextCursor ?? null);
            }}>Load more</button>
          </p>
        )}
      </div>
      {confirm && (
        <Confirm title={`Delete ${confirm.length === 1 ? `“${confirm[0]!.filename}”` : `${confirm.length} documents`}?`} confirmLabel="Delete" onClose={() => setConfirm(null)} onConfirm={() => void act(confirm, 'delete')}>
          <p>Their text and chunks leave the knowledge base: the assistant stops citing them. This cannot be undone.</p>
        </Confirm>
      )}
    </>
  );
}

export function DocumentView({ kbId, docId }: { kbId: string; docId: string }) {
  const { data, error } = useLoad(() => gql(DocumentDetail, { kbId, id: docId }), [kbId, docId]);
  const [more, setMore] = useState<NonNullable<typeof data>['document']['chunks']['nodes']>([]);
  const [next, setNext] = useState<number | null | undefined>(undefined);
  const d = data?.document;
  const chunks = d ? [...d.chunks.nodes, ...more] : [];
  const nextAfter = next === undefined ? d?.chunks.nextAfter : next;
  return (
    <>
      <p><a href={`#/kbs/${kbId}`}>← Documents</a></p>
      <Notice error={error} />
      {d && (
        <>
          <h1 style="word-break:break-all">{d.filename}</h1>
          <p><StatusBadge doc={d} /> {d.error && <span class="error-text">{d.error}</span>}</p>
          <p class="muted small">
            {d.source === 'url' ? 'Crawled page' : `Uploaded file${d.sizeBytes ? `, ${Math.round(d.sizeBytes / 1024)} KB` : ''}${d.pages ? `, ${d.pages} pages` : ''}`} · added {formatDate(d.createdAt)} · last change {formatDate(d.updatedAt)}
          </p>
          <div class="card">
            <h2 style="margin-top:0">Chunks ({d.chunkCount})</h2>
            <p class="small muted">What the assistant reads: each chunk is retrieved and cited on its own.</p>
            {chunks.map((c) => (
              <div class="chunk">
                <div class="small muted">#{c.position + 1}{c.headingPath.length ? ` · ${c.headingPath.join(' › ')}` : ''}{c.page ? ` · page ${c.page}` : ''}{c.url ? ` · ${c.url}` : ''} · {c.tokenCount} tokens</div>
                <p>{c.text}</p>
              </div>
            ))}
            {nextAfter != null && (
              <button type="button" onClick={async () => {
                const r = await gql(DocumentDetail, { kbId, id: docId, after: nextAfter });
                setMore([...more, ...r.document.chunks.nodes]);
                setNext(r.document.chunks.nextAfter ?? null);
              }}>Load more chunks</button>
            )}
          </div>
        </>
      )}
    </>
  );
}
