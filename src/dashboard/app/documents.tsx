/**
 * A KB's documents: drag-and-drop upload (several files, each with its own progress), add a website,
 * status badges, retry/re-ingest/delete one or several, filter by status, keyset "load more", and
 * live status and progress from the documentUpdates subscription while something is processing
 * (the loaded pages are re-read when a document settles). And a document's chunks.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { gql, gqlStream, gqlUpload, type ResultOf } from './gql';
import { CrawlPages, DeleteDocument, DocumentDetail, DocumentUpdates, IngestUrl, KbDocuments, RecrawlDocument, ReingestDocument, SetDocumentEnabled, SetRecrawl, UpdateChunk, UploadFile } from './queries';
import { Confirm, errorMessage, Failure, formatDate, Notice, StatusBadge, useLoad } from './ui';

const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });

/** "German" for "de": the language the document's text was detected in; nothing when unknown. */
function languageName(code: string | null | undefined): string {
  if (!code) return '';
  try {
    return languageNames.of(code) ?? code;
  } catch {
    return code;
  }
}

type Kb = ResultOf<typeof KbDocuments>['knowledgeBase'];
type Doc = Kb['documentPage']['nodes'][number];
type Upload = { id: number; name: string; progress: number; state: 'uploading' | 'done' | 'duplicate' | 'failed'; error?: string; existing?: string };
type Status = 'processing' | 'ready' | 'failed' | '';

const PAGE = 50;
const POLL_MS = 1500;
let uploadSeq = 0;

/**
 * Refused uploads stored no document, so nothing on the server shows them: they are kept in this
 * browser, per KB, until dismissed, so a reload does not lose why a file was refused. The newest 20.
 */
type Refusal = { name: string; error: string; at: string };
const refusalsKey = (kbId: string) => `gw-refused-uploads:${kbId}`;
const MAX_REFUSALS = 20;
function readRefusals(kbId: string): Refusal[] {
  try {
    const list = JSON.parse(localStorage.getItem(refusalsKey(kbId)) ?? '[]') as unknown;
    if (!Array.isArray(list)) return [];
    return (list as Partial<Refusal>[]).filter((r): r is Refusal => typeof r?.name === 'string' && typeof r?.error === 'string').slice(-MAX_REFUSALS);
  } catch {
    return [];
  }
}
function writeRefusals(kbId: string, list: Refusal[]) {
  try {
    if (list.length === 0) localStorage.removeItem(refusalsKey(kbId));
    else localStorage.setItem(refusalsKey(kbId), JSON.stringify(list.slice(-MAX_REFUSALS)));
  } catch {
    // Storage full or denied: the refusal is still shown until the page is left.
  }
}

function DropZone({ kbId, onUploaded }: { kbId: string; onUploaded: () => void }) {
  const [over, setOver] = useState(false);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [refusals, setRefusals] = useState<Refusal[]>(() => readRefusals(kbId));
  useEffect(() => setRefusals(readRefusals(kbId)), [kbId]);
  const input = useRef<HTMLInputElement>(null);
  const patch = (id: number, p: Partial<Upload>) => setUploads((list) => list.map((u) => (u.id === id ? { ...u, ...p } : u)));
  const refuse = (id: number, name: string, error: string) => {
    setUploads((list) => list.filter((u) => u.id !== id));
    const next = [...readRefusals(kbId), { name, error, at: new Date().toISOString() }];
    writeRefusals(kbId, next);
    setRefusals(next.slice(-MAX_REFUSALS));
  };
  const dismiss = (index: number) => {
    const next = refusals.filter((_, i) => i !== index);
    writeRefusals(kbId, next);
    setRefusals(next);
  };
  const send = (files: File[]) => {
    for (const file of files) {
      const id = ++uploadSeq;
      setUploads((list) => [...list, { id, name: file.name, progress: 0, state: 'uploading' }]);
      gqlUpload(UploadFile, { kbId, file }, 'file', file, (p) => patch(id, { progress: p })).then(
        ({ uploadFile: r }) => (patch(id, r.duplicate ? { state: 'duplicate', progress: 1, existing: r.document.filename } : { state: 'done', progress: 1 }), onUploaded()),
        (err) => refuse(id, file.name, errorMessage(err)),
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
              <span class="muted">
                {u.state === 'uploading' ? `${Math.round(u.progress * 100)}%` : u.state === 'done' ? 'uploaded' : `already in this knowledge base as ${u.existing}: not added again`}
              </span>
            </li>
          ))}
        </ul>
      )}
      {refusals.length > 0 && (
        <ul class="uploads" aria-label="Refused uploads">
          {refusals.map((r, i) => (
            <li data-refused={r.name}>
              <span>{r.name}</span>
              <span class="error-text">refused: {r.error}</span>
              <button type="button" onClick={() => dismiss(i)} aria-label={`Dismiss the refusal of ${r.name}`}>Dismiss</button>
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

  const [rowError, setRowError] = useState<{ id: string; message: string } | null>(null);
  /** Deletes throw to their dialog (it stays open and says why); a failed re-ingest is shown on its row. */
  const remove = async (list: Doc[]) => {
    for (const d of list) await gql(DeleteDocument, { kbId, id: d.id });
    setSelected(new Set());
    await refresh();
  };
  const reingest = async (list: Doc[]) => {
    for (const d of list) {
      try {
        await gql(ReingestDocument, { kbId, id: d.id });
        setRowError(null);
      } catch (err) {
        setRowError({ id: d.id, message: `${d.status === 'failed' ? 'Retry' : 'Re-ingest'} failed: ${errorMessage(err)}` });
        if (list.length > 1) setError(`Re-ingest of ${d.filename} failed: ${errorMessage(err)}`);
        return;
      }
    }
    setSelected(new Set());
    await refresh();
  };
  const counts = kb?.documentCounts;
  const total = counts ? counts.processing + counts.ready + counts.failed : 0;
  const chosen = docs.filter((d) => selected.has(d.id));
  const allChosen = docs.length > 0 && chosen.length === docs.length;
  const chooseAll = (on: boolean) => setSelected(on ? new Set(docs.map((d) => d.id)) : new Set());

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
          <h2 style="margin:0" id="documents-heading" tabIndex={-1}>Documents</h2>
          <div class="row">
            <label class="inline" for="status-filter">Status</label>
            <select id="status-filter" value={status} onChange={(e) => setStatus(e.currentTarget.value as Status)}>
              <option value="">All</option><option value="ready">Ready</option><option value="processing">Processing</option><option value="failed">Failed</option>
            </select>
            {/* On a phone the table's header row (and its checkbox) is hidden: this one takes its place. */}
            <label class="inline select-all-phone"><input type="checkbox" checked={allChosen} onChange={(e) => chooseAll(e.currentTarget.checked)} /> Select all</label>
            <button type="button" disabled={chosen.length === 0} onClick={() => void reingest(chosen)}>Re-ingest selected ({chosen.length})</button>
            <button type="button" class="danger" disabled={chosen.length === 0} onClick={() => setConfirm(chosen)}>Delete selected</button>
          </div>
        </div>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th><input type="checkbox" aria-label="Select all shown documents" checked={allChosen} onChange={(e) => chooseAll(e.currentTarget.checked)} /></th>
                <th>Document</th><th>Status</th><th>Added</th><th><span class="skip">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {docs.map((d) => (
                <tr data-doc={d.filename}>
                  <td><input type="checkbox" aria-label={`Select ${d.filename}`} checked={selected.has(d.id)} onChange={(e) => { const s = new Set(selected); e.currentTarget.checked ? s.add(d.id) : s.delete(d.id); setSelected(s); }} /></td>
                  <td class="name" data-label="Document"><a href={`#/kbs/${kbId}/doc/${d.id}`}>{d.filename}</a><div class="small muted">{[d.source === 'url' ? `website${d.pages ? ` · ${d.pages} pages` : ''}` : d.pages ? `${d.pages} pages` : '', languageName(d.language)].filter(Boolean).join(' · ')}</div>{identityLine(d.identity) ? <div class="small" title={`What this document is about, read from ${d.identity!.source ?? 'the document'}`}>{identityLine(d.identity)}</div> : null}</td>
                  <td data-label="Status">
                    <StatusBadge doc={d} />
                    {!d.enabled && <> <span class="badge failed">switched off</span></>}
                    {d.status === 'failed' && <Failure summary={d.errorSummary} detail={d.error} />}
                  </td>
                  <td class="small" data-label="Added">{formatDate(d.createdAt)}</td>
                  <td data-label="Actions"><div class="row">
                    <label class="small"><input type="checkbox" role="switch" checked={d.enabled} aria-label={`Enabled: ${d.filename}`} onChange={async (e) => {
                      const enabled = e.currentTarget.checked;
                      try {
                        const { setDocumentEnabled } = await gql(SetDocumentEnabled, { kbId, id: d.id, enabled });
                        setDocs((list) => list.map((x) => (x.id === d.id ? { ...x, ...setDocumentEnabled } : x)));
                      } catch (err) {
                        setRowError({ id: d.id, message: errorMessage(err) });
                      }
                    }} /> Enabled</label>
                    <button type="button" onClick={() => void reingest([d])} aria-label={`${d.status === 'failed' ? 'Retry' : 'Re-ingest'} ${d.filename}`}>{d.status === 'failed' ? 'Retry' : 'Re-ingest'}</button>
                    <button type="button" class="danger" onClick={() => setConfirm([d])} aria-label={`Delete ${d.filename}`}>Delete</button>
                  </div>{rowError?.id === d.id && <Notice error={rowError.message} />}</td>
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
        <Confirm title={`Delete ${confirm.length === 1 ? `“${confirm[0]!.filename}”` : `${confirm.length} documents`}?`} confirmLabel="Delete" onClose={() => setConfirm(null)} onConfirm={() => remove(confirm)}
          focusAfter={() => document.getElementById('documents-heading')}>
          <p>Their text and chunks leave the knowledge base: the assistant stops citing them. This cannot be undone.</p>
        </Confirm>
      )}
    </>
  );
}

type Chunk = ResultOf<typeof DocumentDetail>['document']['chunks']['nodes'][number];

function ChunkItem({ kbId, docId, chunk, onChange, cited }: { kbId: string; docId: string; chunk: Chunk; onChange: (c: Chunk) => void; cited?: boolean }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(chunk.text);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const label = `chunk ${chunk.position + 1}`;
  const save = async (vars: { enabled?: boolean; text?: string }) => {
    setBusy(true);
    try {
      onChange((await gql(UpdateChunk, { kbId, documentId: docId, chunkId: chunk.id, ...vars })).updateChunk);
      setError(null);
      setEditing(false);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div
      class={`chunk${chunk.enabled ? '' : ' off'}${cited ? ' cited' : ''}`}
      data-chunk={chunk.position + 1}
      id={`chunk-${chunk.id}`}
      tabIndex={cited ? -1 : undefined}
      aria-current={cited ? 'true' : undefined}
      ref={cited ? (el) => void (el && requestAnimationFrame(() => (el.scrollIntoView({ block: 'center' }), el.focus({ preventScroll: true })))) : undefined}
    >
      {cited && <p class="small"><span class="badge ready">cited source</span></p>}
      <div class="small muted">
        #{chunk.position + 1}{chunk.headingPath.length ? ` · ${chunk.headingPath.join(' › ')}` : ''}{chunk.page ? ` · page ${chunk.page}` : ''}{chunk.url ? ` · ${chunk.url}` : ''} · {chunk.tokenCount} tokens
        {!chunk.enabled && <span class="badge failed">switched off</span>}
        {chunk.editedAt && <span class="badge processing" title={formatDate(chunk.editedAt)}>edited</span>}
        {chunk.duplicates > 0 && <span class="badge processing">{chunk.duplicates === 1 ? 'duplicate: 1 other chunk' : `duplicate: ${chunk.duplicates} other chunks`}</span>}
      </div>
      {editing ? (
        <form onSubmit={(e) => (e.preventDefault(), void save({ text }))}>
          <label for={`edit-${chunk.id}`}>Text of {label}</label>
          <textarea id={`edit-${chunk.id}`} rows={6} style="width:100%" value={text} onInput={(e) => setText(e.currentTarget.value)} />
          <div class="row">
            <button class="primary" type="submit" disabled={busy}>Save and re-embed</button>
            <button type="button" onClick={() => (setEditing(false), setText(chunk.text), setError(null))}>Cancel</button>
          </div>
        </form>
      ) : (
        <p>{chunk.text}</p>
      )}
      {!editing && (
        <div class="row">
          <button type="button" disabled={busy} aria-label={`${chunk.enabled ? 'Switch off' : 'Switch on'} ${label}`} onClick={() => void save({ enabled: !chunk.enabled })}>
            {chunk.enabled ? 'Switch off' : 'Switch on'}
          </button>
          <button type="button" aria-label={`Edit ${label}`} onClick={() => setEditing(true)}>Edit</button>
        </div>
      )}
      <Notice error={error} />
    </div>
  );
}

const CHANGE_LABEL = { added: 'new', changed: 'changed', unchanged: 'unchanged' } as const;

function CrawlSite({ kbId, doc, onChanged }: { kbId: string; doc: ResultOf<typeof DocumentDetail>['document']; onChanged: () => void }) {
  const { data, error, reload } = useLoad(() => gql(CrawlPages, { kbId, id: doc.id }), [kbId, doc.id, doc.updatedAt]);
  const [notice, setNotice] = useState<{ error?: string; ok?: string } | null>(null);
  const [schedule, setSchedule] = useState<{ recrawl: string; next: string | null } | null>(null);
  // While a re-crawl runs, the page list is read again every 1.5 s for a minute (the view stays put).
  const [polling, setPolling] = useState(0);
  useEffect(() => {
    if (polling <= 0) return;
    const last = polling === 1;
    const timer = setTimeout(() => (void reload(), setPolling((n) => n - 1), last && onChanged()), 1500);
    return () => clearTimeout(timer);
  }, [polling]);
  const recrawl = async (what: string) => {
    try {
      await gql(RecrawlDocument, { kbId, id: doc.id });
      setNotice({ ok: `${what}: the site is being crawled again; only changed pages are re-embedded.` });
      setPolling(40);
    } catch (err) {
      setNotice({ error: `${what} failed: ${errorMessage(err)}` });
    }
  };
  const pages = data?.document.crawlPages ?? [];
  const changes = doc.lastCrawlChanges;
  return (
    <div class="card" aria-labelledby="pages-heading">
      <h2 style="margin-top:0" id="pages-heading">Pages ({pages.filter((p) => p.state === 'ready').length} read{pages.some((p) => p.state !== 'ready') ? `, ${pages.filter((p) => p.state !== 'ready').length} not` : ''})</h2>
      <div class="row">
        <div>
          <label for="recrawl-schedule">Re-crawl</label>
          <select id="recrawl-schedule" value={schedule?.recrawl ?? doc.recrawl ?? ''} onChange={async (e) => {
            const select = e.currentTarget;
            const value = select.value as 'daily' | 'weekly' | '';
            try {
              const r = (await gql(SetRecrawl, { kbId, id: doc.id, recrawl: value || null })).setDocumentRecrawl;
              setSchedule({ recrawl: r.recrawl ?? '', next: r.nextCrawlAt ?? null });
              setNotice({ ok: value ? `The site is re-crawled ${value}.` : 'The site is no longer re-crawled on a schedule.' });
            } catch (err) {
              select.value = schedule?.recrawl ?? doc.recrawl ?? '';
              setNotice({ error: `The schedule was not changed: ${errorMessage(err)}` });
            }
          }}>
            <option value="">never (only when asked)</option><option value="daily">daily</option><option value="weekly">weekly</option>
          </select>
        </div>
        <button type="button" disabled={doc.status === 'processing'} onClick={() => void recrawl('Re-crawl')}>Re-crawl now</button>
      </div>
      <p class="small muted">
        Last crawled {formatDate(doc.lastCrawledAt)}{(schedule ? schedule.next : doc.nextCrawlAt) ? ` · next ${formatDate(schedule ? schedule.next : doc.nextCrawlAt)}` : ''}
        {changes ? ` · last crawl: ${changes.added} new, ${changes.changed} changed, ${changes.unchanged} unchanged, ${changes.removed} removed` : ''}
      </p>
      <Notice error={error ?? notice?.error ?? null} ok={notice?.ok ?? null} />
      <div class="table-wrap">
        <table class="stack">
          <thead><tr><th>Page</th><th>Status</th><th>Chunks</th><th>Last fetched</th><th>Changed</th></tr></thead>
          <tbody>
            {pages.map((p) => (
              <tr data-page={p.url}>
                <td class="name" data-label="Page">{p.title ? <strong>{p.title}</strong> : null}<div><a href={p.url} target="_blank" rel="noopener noreferrer">{p.url}</a></div></td>
                <td data-label="Status">
                  <span class={`badge ${p.state === 'ready' ? 'ready' : p.state === 'failed' ? 'failed' : 'processing'}`}>{p.state === 'ready' ? 'Read' : p.state === 'failed' ? 'Failed' : 'Skipped'}</span>
                  <Failure summary={p.reason} detail={p.detail} />
                  {p.state === 'failed' && <button type="button" aria-label={`Retry ${p.url}`} disabled={doc.status === 'processing'} onClick={() => void recrawl('Retry')}>Retry</button>}
                </td>
                <td data-label="Chunks">{p.chunks}</td>
                <td class="small" data-label="Last fetched">{formatDate(p.fetchedAt)}</td>
                <td class="small" data-label="Changed">{p.lastChange ? CHANGE_LABEL[p.lastChange] : '—'}{p.changedAt ? ` · ${formatDate(p.changedAt)}` : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {data && pages.length === 0 && <p class="muted">No pages yet.</p>}
    </div>
  );
}

/** `chunkId`: a transcript's cited source; its page of chunks is loaded, and it is scrolled to and marked. */
export function DocumentView({ kbId, docId, chunkId }: { kbId: string; docId: string; chunkId?: string | undefined }) {
  const [query, setQuery] = useState('');
  const [applied, setApplied] = useState('');
  const [reloadKey, setReloadKey] = useState(0);
  // The data says which search it answers: for a render after a new search and before its load,
  // the old list must not be announced as the new search's result.
  const { data, error } = useLoad(
    async () => ({ ...(await gql(DocumentDetail, { kbId, id: docId, ...(applied ? { query: applied } : {}) })), searched: applied }),
    [kbId, docId, applied, reloadKey],
  );
  const [more, setMore] = useState<Chunk[]>([]);
  const [next, setNext] = useState<number | null | undefined>(undefined);
  const [patched, setPatched] = useState<Record<string, Chunk>>({});
  const [retryError, setRetryError] = useState<string | null>(null);
  useEffect(() => (setMore([]), setNext(undefined), setPatched({})), [data]);
  const d = data?.document;
  const chunks = d ? [...d.chunks.nodes, ...more].map((c) => patched[c.id] ?? c) : [];
  const nextAfter = next === undefined ? d?.chunks.nextAfter : next;
  const citedShown = !chunkId || chunks.some((c) => c.id === chunkId);
  // The cited chunk may be past the first page: load pages until it is shown.
  useEffect(() => {
    if (citedShown || applied || nextAfter == null) return;
    void gql(DocumentDetail, { kbId, id: docId, after: nextAfter }).then((r) => {
      setMore((m) => [...m, ...r.document.chunks.nodes]);
      setNext(r.document.chunks.nextAfter ?? null);
    });
  }, [citedShown, nextAfter, applied]);
  return (
    <>
      <p><a href={`#/kbs/${kbId}`}>← Documents</a></p>
      <Notice error={error} />
      {d && (
        <>
          <h1 class="name">{d.filename}</h1>
          <p><StatusBadge doc={d} /> {!d.enabled && <span class="badge failed">switched off: none of its chunks is retrieved</span>}</p>
          {d.status === 'failed' && (
            <div class="card">
              <Failure summary={d.errorSummary} detail={d.error} />
              <button type="button" onClick={async () => {
                try {
                  await gql(ReingestDocument, { kbId, id: d.id });
                  setRetryError(null);
                  setReloadKey((k) => k + 1);
                } catch (err) {
                  setRetryError(`Retry failed: ${errorMessage(err)}`);
                }
              }}>Retry</button>
              <Notice error={retryError} />
            </div>
          )}
          <p class="muted small">
            {d.source === 'url' ? `Crawled site${d.pages ? `, ${d.pages} pages` : ''}` : `Uploaded file${d.sizeBytes ? `, ${Math.round(d.sizeBytes / 1024)} KB` : ''}${d.pages ? `, ${d.pages} pages` : ''}`} · added {formatDate(d.createdAt)} · last change {formatDate(d.updatedAt)}
          </p>
          {d.source === 'url' && <CrawlSite kbId={kbId} doc={d} onChanged={() => setReloadKey((k) => k + 1)} />}
          <div class="card">
            <h2 style="margin-top:0">Chunks ({d.chunkCount})</h2>
            <p class="small muted">What the assistant reads: each chunk is retrieved and cited on its own. A switched-off chunk is kept but never retrieved; an edited one is re-embedded, and keeps its edit when the document is re-ingested as long as the source still produces the same chunk.</p>
            <form class="row" role="search" onSubmit={(e) => (e.preventDefault(), setApplied(query.trim()))}>
              <div class="grow">
                <label for="chunk-search">Search this document's chunks</label>
                <input id="chunk-search" type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} style="width:100%" />
              </div>
              <button type="submit">Search</button>
              {applied && <button type="button" onClick={() => (setQuery(''), setApplied(''))}>Show all</button>}
            </form>
            {applied && data?.searched === applied && <p class="small" role="status">{chunks.length}{nextAfter != null ? '+' : ''} {chunks.length === 1 ? 'chunk contains' : 'chunks contain'} “{applied}”.</p>}
            {chunks.map((c) => (
              <ChunkItem key={c.id} kbId={kbId} docId={docId} chunk={c} cited={c.id === chunkId} onChange={(n) => setPatched((p) => ({ ...p, [n.id]: n }))} />
            ))}
            {nextAfter != null && (
              <button type="button" onClick={async () => {
                const r = await gql(DocumentDetail, { kbId, id: docId, after: nextAfter, ...(applied ? { query: applied } : {}) });
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

/** Subject, kind and period as the document states them; a subject read with low confidence is a guess and is not shown. */
function identityLine(identity: { subject: string | null; kind: string | null; period: string | null; confidence: string } | null | undefined): string {
  if (!identity) return '';
  return [identity.confidence === 'high' ? identity.subject : null, identity.kind, identity.period].filter(Boolean).join(' · ');
}
