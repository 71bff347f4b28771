/** Small shared pieces: status badge, copy button, confirmation dialog, async helper, notices. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { GqlError } from './gql';
import { progressLabel, type IngestProgress } from './progress-label';

export function errorMessage(err: unknown): string {
  return err instanceof GqlError || err instanceof Error ? err.message : String(err);
}

export function since(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export const formatDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

export function StatusBadge({
  doc,
}: {
  doc: { status: string; chunkCount: number; updatedAt: string; error?: string | null; stage?: string | null; progress?: IngestProgress | null; warnings?: ReadonlyArray<{ message: string }> | null };
}) {
  // Ready but in doubt (OCR unsure or unreadable pages): not the green badge; the reasons on hover.
  if (doc.status === 'ready' && doc.warnings && doc.warnings.length > 0) {
    return (
      <span class="badge processing" title={doc.warnings.map((w) => w.message).join('\n')} data-warnings={doc.warnings.length}>
        Ready · check OCR · {doc.chunkCount} {doc.chunkCount === 1 ? 'chunk' : 'chunks'}
      </span>
    );
  }
  if (doc.status === 'ready') return <span class="badge ready">Ready · {doc.chunkCount} {doc.chunkCount === 1 ? 'chunk' : 'chunks'}</span>;
  if (doc.status === 'failed') return <span class="badge failed">Failed</span>;
  const step = progressLabel(doc.stage, doc.progress);
  return <span class="badge processing">Processing · {step ? `${step} · ` : ''}{since(doc.updatedAt)}</span>;
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={async () => {
        await navigator.clipboard.writeText(text);
        setDone(true);
        setTimeout(() => setDone(false), 2000);
      }}
    >
      {done ? 'Copied' : label}
      <span class="skip" aria-live="polite">{done ? 'Copied to the clipboard' : ''}</span>
    </button>
  );
}

/**
 * A native modal <dialog>: focus is trapped, Escape cancels. `onConfirm` may fail: the dialog then
 * stays open and says why, where the action was asked for. Cancelled, focus returns to the opener;
 * confirmed, to `focusAfter` (the opener's row is gone, and its DOM node may now be the next row's).
 */
export function Confirm(props: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void | Promise<unknown>;
  onClose: () => void;
  focusAfter?: () => HTMLElement | null | undefined;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const done = useRef(false);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    ref.current?.showModal();
    return () => {
      const target = done.current ? props.focusAfter?.() : opener;
      // After the re-render that removed the row.
      setTimeout(() => focusHeading(target?.isConnected ? target : document.querySelector<HTMLElement>('main h1')), 0);
    };
  }, []);
  return (
    <dialog ref={ref} onClose={props.onClose} aria-labelledby="confirm-title">
      <h2 id="confirm-title">{props.title}</h2>
      <div>{props.children}</div>
      <Notice error={error} />
      <div class="row" style="justify-content:flex-end;margin-top:16px">
        <button type="button" onClick={() => ref.current?.close()} autofocus>
          Cancel
        </button>
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await props.onConfirm();
              done.current = true;
              ref.current?.close();
            } catch (err) {
              setError(errorMessage(err));
            } finally {
              setBusy(false);
            }
          }}
        >
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** A failure in plain words, with the technical reason behind a disclosure. */
export function Failure({ summary, detail }: { summary?: string | null | undefined; detail?: string | null | undefined }) {
  if (!summary && !detail) return null;
  return (
    <div class="small failure">
      <span class="error-text">{summary ?? detail}</span>
      {summary && detail && (
        <details>
          <summary>Technical details</summary>
          <code class="detail">{detail}</code>
        </details>
      )}
    </div>
  );
}

/** Focus an element that is not focusable by itself (a heading), for screen readers and keyboards. */
export function focusHeading(el: HTMLElement | null | undefined) {
  if (!el) return;
  if (/^H\d$/.test(el.tagName) && !el.hasAttribute('tabindex')) el.setAttribute('tabindex', '-1');
  el.focus();
}

export function Notice({ error, ok }: { error?: string | null; ok?: string | null }) {
  if (error) return <p class="notice bad" role="alert">{error}</p>;
  if (ok) return <p class="notice ok" role="status">{ok}</p>;
  return null;
}

/** Loads data, exposes reload, and keeps the last error for display. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = async () => {
    try {
      setData(await load());
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  useEffect(() => {
    setData(null);
    void reload();
  }, deps);
  return { data, error, reload, setData };
}
