/**
 * The Groundwork dashboard: Knowledge Bases, Sandbox and Workspace (Embed, Settings, Usage). A hash
 * router keeps every view addressable without server routes; the server only serves the shell.
 */
import { signal } from '@preact/signals';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { gql } from './gql';
import { SignIn, SignInWithPassword, SignOut } from './queries';
import { AccountView, MembersView } from './members';
import { DocumentView, KbView } from './documents';
import { KbListView } from './kbs';
import { SandboxView } from './sandbox';
import { EvalsView } from './evals';
import { ActivityView, ConversationsView, CuratedAnswersView, UnansweredView } from './insights';
import { EmbedView, SettingsView, UsageView } from './workspace';
import { AuditView } from './audit';
import { errorMessage, focusHeading, Notice } from './ui';
import { may, me, org, refreshOrg, sessionEnded, type Org } from './session';

const route = signal(location.hash.slice(1) || '/kbs');
addEventListener('hashchange', () => {
  route.value = location.hash.slice(1) || '/kbs';
  // A screen reader hears the new page's heading, and Tab continues from there, not from the old link.
  // Views that load their data first render the heading a moment later: wait for it (up to 3 s).
  let tries = 0;
  const focusWhenShown = () => {
    const h1 = document.querySelector<HTMLElement>('main h1');
    if (h1) focusHeading(h1);
    else if (tries++ < 60) setTimeout(focusWhenShown, 50);
  };
  setTimeout(focusWhenShown, 0);
});
const THEMES = ['auto', 'light', 'dark'] as const;
const theme = signal<(typeof THEMES)[number]>((localStorage.getItem('gw-theme') as 'auto') ?? 'auto');
const applyTheme = () => {
  if (theme.value === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme.value;
};

/** One sign-in attempt: busy while it runs, its error kept; on success the dashboard loads the signed-in organisation. */
function useSignIn(signIn: () => Promise<unknown>) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      await signIn();
      sessionEnded.value = false;
      await refreshOrg();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, onSubmit };
}

function PasswordSignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { error, busy, onSubmit } = useSignIn(async () => {
    await gql(SignInWithPassword, { email: email.trim(), password });
    setPassword('');
  });
  return (
    <form onSubmit={onSubmit}>
      <label for="email">Email</label>
      <input id="email" type="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} style="width:100%" />
      <label for="password">Password</label>
      <input id="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} style="width:100%" />
      <Notice error={error} />
      <p>
        <button class="primary" type="submit" disabled={busy}>Continue</button>
      </p>
    </form>
  );
}

function SignInView() {
  const [key, setKey] = useState('');
  const { error, busy, onSubmit } = useSignIn(async () => {
    await gql(SignIn, { apiKey: key.trim() });
    setKey('');
  });
  return (
    <main id="content" class="signin">
      <div class="card">
        <h1>Sign in to Groundwork</h1>
        <Notice ok={sessionEnded.value ? 'Your dashboard session has ended: sign in again.' : null} />
        <PasswordSignIn />
        <h2 class="small">Or with an API key</h2>
        <p class="muted small">
          A full key of your organisation (the first start prints one) signs in as an owner. A one-time link from{' '}
          <code>npm run cli -- dashboard link --org &lt;slug&gt;</code> works too.
        </p>
        <form onSubmit={onSubmit}>
          <label for="api-key">API key</label>
          <input id="api-key" type="password" autocomplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} placeholder="gw_…" style="width:100%" />
          <Notice error={error} />
          <p>
            <button type="submit" disabled={busy}>
              Sign in
            </button>
          </p>
        </form>
        <p class="small muted">Either way you get a session cookie that scripts cannot read; nothing secret is kept in the browser.</p>
      </div>
    </main>
  );
}

/** Each area, and the permission it needs to be listed (the server enforces it either way). */
const NAV: ReadonlyArray<readonly [string, string, string?]> = [
  ['/kbs', 'Knowledge Bases'],
  ['/sandbox', 'Sandbox'],
  ['/evals', 'Evals'],
  ['/conversations', 'Conversations'],
  ['/unanswered', 'Unanswered'],
  ['/annotations', 'Curated answers'],
  ['/activity', 'Activity'],
  ['/embed', 'Embed'],
  ['/settings', 'Settings', 'settings.update'],
  ['/usage', 'Usage'],
  ['/members', 'Members', 'member.read'],
  ['/audit', 'Audit log', 'audit.read'],
  ['/account', 'Account'],
];

function View({ path, o }: { path: string; o: Org }) {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'kbs' && parts[1] && parts[2] === 'doc' && parts[3]) return <DocumentView kbId={parts[1]} docId={parts[3]} chunkId={parts[4] === 'chunk' ? parts[5] : undefined} />;
  if (parts[0] === 'kbs' && parts[1]) return <KbView kbId={parts[1]} />;
  if (parts[0] === 'sandbox') return <SandboxView kbId={parts[1]} />;
  if (parts[0] === 'evals') return <EvalsView kbId={parts[1]} />;
  if (parts[0] === 'conversations') return <ConversationsView kbId={parts[1]} sessionId={parts[2]} />;
  if (parts[0] === 'unanswered') return <UnansweredView kbId={parts[1]} />;
  if (parts[0] === 'annotations') return <CuratedAnswersView kbId={parts[1]} />;
  if (parts[0] === 'activity') return <ActivityView />;
  if (parts[0] === 'embed') return <EmbedView org={o} />;
  if (parts[0] === 'settings') return <SettingsView org={o} />;
  if (parts[0] === 'usage') return <UsageView org={o} />;
  if (parts[0] === 'audit') return <AuditView />;
  if (parts[0] === 'members') return <MembersView />;
  if (parts[0] === 'account') return <AccountView />;
  return <KbListView />;
}

function App() {
  useEffect(() => void refreshOrg(), []);
  useEffect(applyTheme, [theme.value]);
  useEffect(() => {
    const area = NAV.find(([p]) => route.value.startsWith(p))?.[1] ?? 'Dashboard';
    document.title = `${area} · Groundwork`;
  }, [route.value]);
  const o = org.value;
  if (o === undefined) return <p class="boot">Loading…</p>;
  if (o === null) return <SignInView />;
  return (
    <>
      <a class="skip" href="#content" onClick={(e) => (e.preventDefault(), document.getElementById('content')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Groundwork</span>
        <span class="org">
          {o.name} · {o.plan} plan · {me.value?.email ?? 'API key'} ({me.value?.role ?? 'owner'})
        </span>
        <label class="inline small">
          Theme
          <select
            value={theme.value}
            onChange={(e) => {
              theme.value = e.currentTarget.value as 'auto';
              localStorage.setItem('gw-theme', theme.value);
            }}
          >
            {THEMES.map((t) => (
              <option value={t}>{t}</option>
            ))}
          </select>
        </label>
        <button
          type="button"
          onClick={async () => {
            await gql(SignOut).catch(() => {});
            org.value = null;
            location.hash = '';
          }}
        >
          Sign out
        </button>
      </header>
      <nav class="main" aria-label="Dashboard">
        {NAV.filter(([, , needs]) => !needs || may(needs)).map(([p, label]) => (
          <a href={`#${p}`} aria-current={route.value.startsWith(p) ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      <main id="content" tabIndex={-1}>
        {me.value?.kind === 'user' && me.value.hasPassword === false && !route.value.startsWith('/account') && (
          <p class="notice bad" role="status">You have no password yet: <a href="#/account">set one under Account</a> to sign in again later.</p>
        )}
        <View path={route.value} o={o} />
      </main>
    </>
  );
}

applyTheme();
render(<App />, document.getElementById('app')!);
