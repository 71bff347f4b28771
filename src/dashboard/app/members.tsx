/**
 * Members (admins): people and their roles, invitations (the link shown once), open sessions.
 * Account (everyone signed in as a person): set your password.
 */
import { useState } from 'preact/hooks';
import { gql, type ResultOf } from './gql';
import { ChangeMemberRole, InviteMember, People, RemoveMember, ResetMemberPassword, RevokeInvitation, RevokeSession, SetPassword } from './queries';
import { Confirm, CopyButton, errorMessage, formatDate, Notice, useLoad } from './ui';
import { may, me, refreshOrg } from './session';

const ROLES = ['viewer', 'editor', 'admin', 'owner'] as const;
type Member = ResultOf<typeof People>['members'][number];

function OneTimeLink({ title, link, onDone }: { title: string; link: string; onDone: () => void }) {
  return (
    <div class="notice ok" role="status" data-testid="one-time-link">
      <p style="margin-top:0">{title} — shown this once:</p>
      <pre style="white-space:pre-wrap;word-break:break-all">{link}</pre>
      <CopyButton text={link} label="Copy link" /> <button type="button" onClick={onDone}>Done</button>
    </div>
  );
}

export function MembersView() {
  const { data, error, reload } = useLoad(() => gql(People), []);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<string>('editor');
  const [link, setLink] = useState<{ title: string; link: string } | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const act = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      setFormError(null);
      await reload();
    } catch (err) {
      setFormError(errorMessage(err));
    }
  };
  const canWrite = may('member.write');
  const roles = ROLES.filter((r) => r !== 'owner' || may('owner.write'));
  return (
    <>
      <h1>Members</h1>
      <Notice error={error ?? formError} />
      {canWrite && (
        <form class="card row" onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const r = (await gql(InviteMember, { email: email.trim(), role })).inviteMember;
            setLink({ title: `Invitation for ${r.invitation.email} (${r.invitation.role})${r.emailed ? ', also emailed' : ''}`, link: r.link });
            setEmail('');
          });
        }}>
          <div class="grow">
            <label for="invite-email">Email of the person to invite</label>
            <input id="invite-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} style="width:100%" />
          </div>
          <div>
            <label for="invite-role">Role</label>
            <select id="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value)}>
              {roles.map((r) => <option value={r}>{r}</option>)}
            </select>
          </div>
          <button class="primary" type="submit">Invite</button>
        </form>
      )}
      {link && <OneTimeLink title={link.title} link={link.link} onDone={() => setLink(null)} />}
      <div class="card">
        <h2 style="margin-top:0">People</h2>
        <div class="table-wrap">
          <table>
            <thead><tr><th>Email</th><th>Role</th><th>Since</th><th><span class="skip">Actions</span></th></tr></thead>
            <tbody>
              {data?.members.map((m) => (
                <tr data-member={m.email}>
                  <td data-label="Email">{m.email}{m.name ? ` (${m.name})` : ''}{!m.hasPassword && <span class="muted small"> · no password yet</span>}</td>
                  <td data-label="Role">
                    {canWrite ? (
                      <select aria-label={`Role of ${m.email}`} value={m.role} onChange={(e) => void act(() => gql(ChangeMemberRole, { id: m.id, role: e.currentTarget.value }))}>
                        {ROLES.filter((r) => r === m.role || roles.includes(r)).map((r) => <option value={r}>{r}</option>)}
                      </select>
                    ) : m.role}
                  </td>
                  <td class="small" data-label="Since">{formatDate(m.createdAt)}</td>
                  <td data-label="Actions">
                    {canWrite && m.email !== me.value?.email && (
                      <>
                        <button type="button" onClick={() => void act(async () => setLink({ title: `Password reset link for ${m.email}`, link: (await gql(ResetMemberPassword, { id: m.id })).resetMemberPassword.link }))}>Reset password</button>{' '}
                        <button type="button" class="danger" aria-label={`Remove ${m.email}`} onClick={() => setRemoving(m)}>Remove</button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
              {data?.invitations.map((i) => (
                <tr data-invitation={i.email}>
                  <td data-label="Email">{i.email} <span class="badge processing">invited</span></td>
                  <td data-label="Role">{i.role}</td>
                  <td class="small" data-label="Since">until {formatDate(i.expiresAt)}</td>
                  <td data-label="Actions">{canWrite && <button type="button" onClick={() => void act(() => gql(RevokeInvitation, { id: i.id }))}>Revoke invitation</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
      <div class="card">
        <h2 style="margin-top:0">Open sessions</h2>
        <div class="table-wrap">
          <table>
            <thead><tr><th>Who</th><th>How</th><th>Last seen</th><th>From</th><th><span class="skip">Actions</span></th></tr></thead>
            <tbody>
              {data?.sessions.map((s) => (
                <tr>
                  <td data-label="Who">{s.email ?? 'API key'}{s.current ? ' (this session)' : ''}</td>
                  <td data-label="How">{s.via.replace('_', ' ')}</td>
                  <td class="small" data-label="Last seen">{formatDate(s.lastSeenAt ?? s.createdAt)}</td>
                  <td class="small" data-label="From">{s.ip ?? '—'} <span class="muted">{s.userAgent?.slice(0, 60) ?? ''}</span></td>
                  <td data-label="Actions">{canWrite && !s.current && <button type="button" onClick={() => void act(() => gql(RevokeSession, { id: s.id }))}>End session</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
      {removing && (
        <Confirm title={`Remove ${removing.email}?`} confirmLabel="Remove member" onClose={() => setRemoving(null)} onConfirm={async () => {
          await gql(RemoveMember, { id: removing.id });
          await reload();
        }} focusAfter={() => document.querySelector<HTMLElement>('main h1')}>
          <p>They are signed out everywhere at once and can no longer sign in. What they did stays in the audit log.</p>
        </Confirm>
      )}
    </>
  );
}

export function AccountView() {
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [state, setState] = useState<{ ok?: string; error?: string }>({});
  const m = me.value;
  return (
    <>
      <h1>Your account</h1>
      {m?.kind !== 'user' ? (
        <p class="muted">You signed in with an API key, which acts as an owner. People sign in with their email and password: invite them under Members.</p>
      ) : (
        <form class="card" onSubmit={async (e) => {
          e.preventDefault();
          try {
            await gql(SetPassword, { password, ...(m.hasPassword && current ? { current } : {}) });
            setState({ ok: 'Your password is set.' });
            setCurrent('');
            setPassword('');
            await refreshOrg();
          } catch (err) {
            setState({ error: errorMessage(err) });
          }
        }}>
          <p>{m.email} · {m.role}</p>
          {m.hasPassword && (
            <>
              <label for="current-password">Current password (not needed right after a reset link)</label>
              <input id="current-password" type="password" autocomplete="current-password" value={current} onInput={(e) => setCurrent(e.currentTarget.value)} style="width:100%" />
            </>
          )}
          <label for="new-password">New password (at least 10 characters)</label>
          <input id="new-password" type="password" autocomplete="new-password" required minLength={10} maxLength={200} value={password} onInput={(e) => setPassword(e.currentTarget.value)} style="width:100%" />
          <Notice error={state.error ?? null} ok={state.ok ?? null} />
          <p><button class="primary" type="submit">Set password</button></p>
        </form>
      )}
    </>
  );
}
