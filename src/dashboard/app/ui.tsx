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

export function StatusBadge({ doc }: { doc: { status: string; chunkCount: number; updatedAt: string; error?: string | null; stage?: string | null; progress?: IngestProgress | null } }) {
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

/** A native modal <dialog>: focus is trapped, Escape cancels, focus returns to the opener. */
export function Confirm(props: { title: string; children: ComponentChildren; confirmLabel: string; onConfirm: () => void; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    ref.current?.showModal();
    return () => opener?.focus();
  }, []);
  return (
    <dialog ref={ref} onClose={props.onClose} aria-labelledby="confirm-title">
      <h2 id="confirm-title">{props.title}</h2>
      <div>{props.children}</div>
      <div class="row" style="justify-content:flex-end;margin-top:16px">
        <button type="button" onClick={() => ref.current?.close()} autofocus>
          Cancel
        </button>
        <button
          type="button"
          class="danger"
          onClick={() => {
            props.onConfirm();
            ref.current?.close();
          }}
        >
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
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
