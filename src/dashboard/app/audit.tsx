/** The audit log: every admin action with who, when, from where and what changed; read-only. */
import { useEffect, useState } from 'preact/hooks';
import { gql, type ResultOf } from './gql';
import { AuditLog } from './queries';
import { errorMessage, formatDate, Notice } from './ui';

type Entry = ResultOf<typeof AuditLog>['auditLog']['entries'][number];

const FAMILIES = [
  ['', 'Every action'],
  ['kb.', 'Knowledge bases'],
  ['document.', 'Documents'],
  ['chunk.', 'Chunks'],
  ['annotation.', 'Curated answers'],
  ['settings.', 'Settings'],
  ['voice_settings.', 'Voice settings'],
  ['key.', 'API keys'],
  ['member.', 'Members'],
  ['invitation.', 'Invitations'],
  ['session.', 'Sessions'],
  ['eval_', 'Test sets'],
  ['conversation.', 'Conversations'],
] as const;

function Changes({ json }: { json: string }) {
  if (json === '{}') return <span class="muted">—</span>;
  const text = JSON.stringify(JSON.parse(json), null, 2);
  if (text.length <= 80) return <code class="small">{json}</code>;
  return (
    <details>
      <summary class="small">{json.slice(0, 60)}…</summary>
      <pre class="small">{text}</pre>
    </details>
  );
}

export function AuditView() {
  const [filters, setFilters] = useState({ action: '', actor: '', from: '', to: '' });
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = async (before: string | null) => {
    setBusy(true);
    try {
      const vars = {
        ...(filters.action ? { action: filters.action } : {}),
        ...(filters.actor.trim() ? { actor: filters.actor.trim() } : {}),
        ...(filters.from ? { from: filters.from } : {}),
        ...(filters.to ? { to: filters.to } : {}),
        ...(before ? { before } : {}),
      };
      const page = (await gql(AuditLog, vars)).auditLog;
      setEntries(before ? [...(entries ?? []), ...page.entries] : page.entries);
      setNext(page.nextBefore);
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => void load(null), []);

  const field = (k: keyof typeof filters) => ({ value: filters[k], onInput: (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) => setFilters({ ...filters, [k]: e.currentTarget.value }) });
  return (
    <>
      <h1>Audit log</h1>
      <p class="muted">Every change to knowledge bases, documents, settings, keys, members and sessions, newest first. Entries cannot be edited or deleted.</p>
      <form class="card row" onSubmit={(e) => (e.preventDefault(), void load(null))}>
        <div>
          <label for="audit-action">Action</label>
          <select id="audit-action" {...field('action')}>
            {FAMILIES.map(([v, l]) => <option value={v}>{l}</option>)}
          </select>
        </div>
        <div class="grow">
          <label for="audit-actor">Who (email or key prefix)</label>
          <input id="audit-actor" {...field('actor')} style="width:100%" />
        </div>
        <div>
          <label for="audit-from">From</label>
          <input id="audit-from" type="date" {...field('from')} />
        </div>
        <div>
          <label for="audit-to">To</label>
          <input id="audit-to" type="date" {...field('to')} />
        </div>
        <button class="primary" type="submit" disabled={busy}>Filter</button>
      </form>
      <Notice error={error} />
      {entries && entries.length === 0 && <p class="muted">No entries match.</p>}
      {entries && entries.length > 0 && (
        <div class="table-wrap">
          <table data-testid="audit-log">
            <thead><tr><th>When</th><th>Who</th><th>From</th><th>Action</th><th>Target</th><th>What changed</th></tr></thead>
            <tbody>
              {entries.map((e) => (
                <tr data-action={e.action}>
                  <td class="small" data-label="When">{formatDate(e.at)}</td>
                  <td data-label="Who">{e.actor.label} <span class="muted small">({e.actor.type.replace('_', ' ')})</span></td>
                  <td class="small" data-label="From">{e.ip ?? '—'}</td>
                  <td data-label="Action"><code>{e.action}</code></td>
                  <td class="small" data-label="Target">{e.targetType} {e.targetId && <code>{e.targetId}</code>}</td>
                  <td data-label="What changed"><Changes json={e.changes} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && <p><button type="button" disabled={busy} onClick={() => void load(next)}>Older entries</button></p>}
    </>
  );
}
