/** Workspace: Embed (snippet, attributes, live preview), Settings (origins, widget, voice, API keys), Usage. */
import { useEffect, useState } from 'preact/hooks';
import { gql, GqlError, type ResultOf } from './gql';
import { refreshOrg, type Org } from './session';
import { ApiKeys, CreateApiKey, KbList, RevokeApiKey, UpdateKb, UpdateSettings, UpdateVoiceSettings, Usage, VoiceSettings } from './queries';
import { EAGERNESS_LEVELS, MAX_INSTRUCTIONS_SUFFIX, TURN_DETECTIONS, VOICE_NAMES } from '../../services/voice/voice-options';
import { Confirm, CopyButton, errorMessage, formatDate, Notice, useLoad } from './ui';

export function EmbedView({ org }: { org: Org }) {
  const kbs = useLoad(() => gql(KbList), []);
  const [kbId, setKbId] = useState('');
  const [theme, setTheme] = useState<'auto' | 'light' | 'dark'>('auto');
  useEffect(() => {
    if (!kbId && kbs.data?.knowledgeBases[0]) setKbId(kbs.data.knowledgeBases[0].id);
  }, [kbs.data]);
  const snippet = `<script src="${location.origin}/embed/widget.js" data-org="${org.slug}" data-kb="${kbId}" data-theme="${theme}" defer></script>`;
  const originAllowed = org.settings.allowedOrigins.length === 0 || org.settings.allowedOrigins.includes(location.origin);
  const kb = kbs.data?.knowledgeBases.find((k) => k.id === kbId);
  return (
    <>
      <h1>Embed</h1>
      <div class="card">
        <div class="row">
          <div>
            <label for="embed-kb">Knowledge base</label>
            <select id="embed-kb" value={kbId} onChange={(e) => setKbId(e.currentTarget.value)}>
              {kbs.data?.knowledgeBases.map((k) => <option value={k.id}>{k.name}</option>)}
            </select>
          </div>
          <div>
            <label for="embed-theme">Theme</label>
            <select id="embed-theme" value={theme} onChange={(e) => setTheme(e.currentTarget.value as 'auto')}>
              <option value="auto">auto (follows the visitor)</option><option value="light">light</option><option value="dark">dark</option>
            </select>
          </div>
        </div>
        <h2>Script tag</h2>
        <p class="small muted">Paste it before <code>&lt;/body&gt;</code> on every page that should show the chat bubble.</p>
        {/* No snippet without a KB: a tag with an empty data-kb would be copied and pasted as is. */}
        {kb && !kb.widgetEnabled && (
          <p class="notice bad" role="alert" data-testid="widget-off">
            The widget of {kb.name} is switched off: a page with this tag shows no chat until you switch it on in <a href="#/settings">Settings</a>.
          </p>
        )}
        {kbId ? (
          <>
            <pre data-testid="snippet">{snippet}</pre>
            <CopyButton text={snippet} label="Copy snippet" />
          </>
        ) : (
          <p class="muted">{kbs.data ? 'Create a knowledge base first: the tag names the one it answers from.' : 'Loading…'}</p>
        )}
        <h2>Attributes</h2>
        <dl>
          <dt><code>data-org</code></dt><dd>Your organisation's slug (<code>{org.slug}</code>): which account answers.</dd>
          <dt><code>data-kb</code></dt><dd>The knowledge base the widget answers from. Its widget switch (Settings) must be on.</dd>
          <dt><code>data-theme</code></dt><dd><code>light</code>, <code>dark</code> or <code>auto</code> (the visitor's system setting).</dd>
          <dt><code>data-voice</code></dt><dd><code>true</code> adds a microphone button when voice is available (Settings, Voice).</dd>
        </dl>
      </div>
      {kbId && (
        <div class="card">
          <h2 style="margin-top:0">Live preview</h2>
          {!originAllowed && <p class="notice bad">The allowed origins (Settings) do not include {location.origin}, so the widget refuses to answer in this preview.</p>}
          <iframe class="preview" title="Widget preview on a sample page" src={`/admin/preview?org=${encodeURIComponent(org.slug)}&kb=${encodeURIComponent(kbId)}&theme=${theme}`} />
        </div>
      )}
    </>
  );
}

function Origins({ org }: { org: Org }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const save = async (list: string[]) => {
    try {
      await gql(UpdateSettings, { input: { allowedOrigins: list } });
      setError(null);
      await refreshOrg();
      return true;
    } catch (err) {
      setError(errorMessage(err));
      return false;
    }
  };
  return (
    <div class="card">
      <h2 style="margin-top:0">Allowed origins</h2>
      <p class="small muted">Websites that may embed the widget. With none listed, every website may.</p>
      <ul>
        {org.settings.allowedOrigins.map((o) => (
          <li>
            <code>{o}</code>{' '}
            <button type="button" class="link" aria-label={`Remove ${o}`} onClick={() => void save(org.settings.allowedOrigins.filter((x) => x !== o))}>remove</button>
          </li>
        ))}
      </ul>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          let origin: string;
          try {
            const u = new URL(value.trim());
            if (!/^https?:$/.test(u.protocol) || (u.pathname !== '/' && u.pathname !== '')) throw new Error();
            origin = u.origin;
          } catch {
            setError(`"${value}" is not an origin: use scheme://host[:port], e.g. https://www.example.com`);
            return;
          }
          if (await save([...org.settings.allowedOrigins, origin])) setValue('');
        }}
      >
        <label for="origin-input">Add an origin</label>
        <div class="row">
          <input id="origin-input" class="grow" placeholder="https://www.example.com" value={value} onInput={(e) => setValue(e.currentTarget.value)} aria-describedby="origin-error" />
          <button type="submit">Add</button>
        </div>
        <div id="origin-error"><Notice error={error} /></div>
      </form>
    </div>
  );
}

function WidgetSwitches() {
  const { data, error, reload } = useLoad(() => gql(KbList), []);
  const [failed, setFailed] = useState<{ id: string; message: string } | null>(null);
  return (
    <div class="card">
      <h2 style="margin-top:0">Widget per knowledge base</h2>
      <Notice error={error} />
      {/* A KB deleted meanwhile leaves the list on reload: its failure is still said here. */}
      {failed && data && !data.knowledgeBases.some((k) => k.id === failed.id) && <Notice error={failed.message} />}
      {data?.knowledgeBases.map((kb) => (
        <div class="switch-row">
          <p class="switch">
            <label class="inline">
              <input type="checkbox" role="switch" checked={kb.widgetEnabled} aria-describedby={`widget-error-${kb.id}`} onChange={async (e) => {
                const input = e.currentTarget;
                const wanted = input.checked;
                try {
                  await gql(UpdateKb, { input: { id: kb.id, widgetEnabled: wanted } });
                  setFailed(null);
                } catch (err) {
                  // The switch shows what is saved, not what was asked for.
                  input.checked = !wanted;
                  setFailed({ id: kb.id, message: `The widget of ${kb.name} is still ${wanted ? 'off' : 'on'}: ${errorMessage(err)}` });
                }
                void reload();
              }} />
              {kb.name}
            </label>
          </p>
          <div id={`widget-error-${kb.id}`}>{failed?.id === kb.id && <Notice error={failed.message} />}</div>
        </div>
      ))}
    </div>
  );
}

function Voice({ org }: { org: Org }) {
  const reason = org.settings.voiceBlockedReason;
  const unavailable = org.settings.voiceEnabled && !org.settings.voiceAvailable ? org.settings.voiceUnavailableReason : null;
  const [error, setError] = useState<string | null>(null);
  return (
    <div class="card">
      <h2 style="margin-top:0">Voice</h2>
      <label class="inline">
        <input type="checkbox" role="switch" id="voice-switch" checked={org.settings.voiceEnabled} disabled={!!reason && !org.settings.voiceEnabled} aria-describedby="voice-reason"
          onChange={async (e) => {
            try {
              await gql(UpdateSettings, { input: { voiceEnabled: e.currentTarget.checked } });
              setError(null);
            } catch (err) {
              setError(errorMessage(err));
            }
            await refreshOrg();
          }} />
        Voice conversations in the widget
      </label>
      {/* Switched on but refused by the voice provider (401/403): only an admin can act on it, so say it loudly. */}
      {unavailable ? (
        <p id="voice-reason" class="notice bad" role="alert" data-testid="voice-unavailable">Voice is unavailable: {unavailable}</p>
      ) : (
        <p id="voice-reason" class="small muted">{reason ?? (org.settings.voiceAvailable ? 'Voice is on: add data-voice="true" to the script tag.' : 'Available on your plan: switch it on.')}</p>
      )}
      <Notice error={error} />
      <VoiceSettingsForm />
    </div>
  );
}

type VoiceConfig = ResultOf<typeof VoiceSettings>['voiceSettings'];
type VoiceField = 'turn_detection' | 'eagerness' | 'voice' | 'instructions_suffix';
const TURN_LABELS: Record<string, string> = { server_vad: 'Silence ends the turn (server_vad)', semantic_vad: 'The model judges when the visitor has finished (semantic_vad)' };

/** Turn detection, eagerness, voice and instructions suffix, for the organisation or overridden per knowledge base. */
function VoiceSettingsForm() {
  const kbs = useLoad(() => gql(KbList), []);
  const [kbId, setKbId] = useState('');
  const [org, setOrg] = useState<VoiceConfig | null>(null);
  const [current, setCurrent] = useState<VoiceConfig | null>(null);
  // '' in a KB's select: use the organisation's value.
  const [form, setForm] = useState({ turnDetection: '', eagerness: '', voice: '', instructionsSuffix: '', suffixOwn: false });
  const [errors, setErrors] = useState<{ field: VoiceField | null; message: string } | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const show = (c: VoiceConfig) => {
    const own = (f: VoiceField) => !c.kbId || c.overridden.includes(f);
    setCurrent(c);
    setForm({
      turnDetection: own('turn_detection') ? c.turnDetection : '',
      eagerness: own('eagerness') ? c.eagerness : '',
      voice: own('voice') ? c.voice : '',
      instructionsSuffix: c.instructionsSuffix,
      suffixOwn: own('instructions_suffix'),
    });
  };
  const load = async (id: string) => {
    setErrors(null);
    setSaved(null);
    try {
      const orgSettings = (await gql(VoiceSettings, {})).voiceSettings;
      setOrg(orgSettings);
      show(id ? (await gql(VoiceSettings, { kbId: id })).voiceSettings : orgSettings);
    } catch (err) {
      setErrors({ field: null, message: errorMessage(err) });
    }
  };
  useEffect(() => void load(kbId), [kbId]);

  const forKb = kbId !== '';
  const turn = form.turnDetection || org?.turnDetection || 'server_vad';
  const inherit = (value: string | undefined) => <option value="">Organisation’s ({value ?? '…'})</option>;
  const fieldError = (f: VoiceField) => (errors?.field === f ? <Notice error={errors.message} /> : null);
  const describedBy = (f: VoiceField) => (errors?.field === f ? `voice-${f}-error` : undefined);

  return (
    <form
      class="voice-settings"
      aria-labelledby="voice-settings-title"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setSaved(null);
        // A KB sends null for what it leaves to the organisation; the organisation sends every field.
        const value = (v: string) => (forKb ? v || null : v);
        try {
          const result = await gql(UpdateVoiceSettings, {
            input: {
              ...(forKb ? { kbId } : {}),
              turnDetection: value(form.turnDetection),
              eagerness: value(form.eagerness),
              voice: value(form.voice),
              instructionsSuffix: forKb && !form.suffixOwn ? null : form.instructionsSuffix,
            },
          });
          show(result.updateVoiceSettings);
          if (!forKb) setOrg(result.updateVoiceSettings);
          setErrors(null);
          setSaved(forKb ? 'Saved for this knowledge base.' : 'Saved for the organisation.');
        } catch (err) {
          const field = err instanceof GqlError ? (err.field?.replace(/^input\./, '') as VoiceField | undefined) : undefined;
          setErrors({ field: field && ['turn_detection', 'eagerness', 'voice', 'instructions_suffix'].includes(field) ? field : null, message: `Not saved: ${errorMessage(err)}` });
        } finally {
          setBusy(false);
        }
      }}
    >
      <h3 id="voice-settings-title">Voice settings</h3>
      <label for="voice-scope">Settings for</label>
      <select id="voice-scope" value={kbId} onChange={(e) => setKbId(e.currentTarget.value)}>
        <option value="">The organisation (every knowledge base)</option>
        {kbs.data?.knowledgeBases.map((k) => <option value={k.id}>{k.name} (override)</option>)}
      </select>
      <Notice error={errors && !errors.field ? errors.message : kbs.error} />
      <div class="row">
        <div>
          <label for="voice-turn-detection">Turn detection</label>
          <select id="voice-turn-detection" value={form.turnDetection} aria-describedby={describedBy('turn_detection')} onChange={(e) => setForm({ ...form, turnDetection: e.currentTarget.value })}>
            {forKb && inherit(org ? TURN_LABELS[org.turnDetection] : undefined)}
            {TURN_DETECTIONS.map((t) => <option value={t}>{TURN_LABELS[t]}</option>)}
          </select>
          <div id="voice-turn_detection-error">{fieldError('turn_detection')}</div>
        </div>
        <div>
          <label for="voice-eagerness">Eagerness</label>
          <select id="voice-eagerness" value={form.eagerness} disabled={turn !== 'semantic_vad'} aria-describedby="voice-eagerness-help" onChange={(e) => setForm({ ...form, eagerness: e.currentTarget.value })}>
            {forKb && inherit(org?.eagerness)}
            {EAGERNESS_LEVELS.map((l) => <option value={l}>{l}</option>)}
          </select>
          <p id="voice-eagerness-help" class="small muted">semantic_vad only: low waits longer before answering, high answers sooner.</p>
          <div id="voice-eagerness-error">{fieldError('eagerness')}</div>
        </div>
        <div>
          <label for="voice-voice">Voice</label>
          <select id="voice-voice" value={form.voice} aria-describedby={describedBy('voice')} onChange={(e) => setForm({ ...form, voice: e.currentTarget.value })}>
            {forKb && inherit(org?.voice)}
            {VOICE_NAMES.map((v) => <option value={v}>{v}</option>)}
          </select>
          <div id="voice-voice-error">{fieldError('voice')}</div>
        </div>
      </div>
      {forKb && (
        <label class="inline">
          <input type="checkbox" id="voice-suffix-own" checked={form.suffixOwn} onChange={(e) => setForm({ ...form, suffixOwn: e.currentTarget.checked, instructionsSuffix: e.currentTarget.checked ? form.instructionsSuffix : (org?.instructionsSuffix ?? '') })} />
          Own instructions suffix for this knowledge base
        </label>
      )}
      <label for="voice-instructions-suffix">Instructions suffix</label>
      <textarea
        id="voice-instructions-suffix"
        rows={3}
        style="width:100%"
        value={form.instructionsSuffix}
        disabled={forKb && !form.suffixOwn}
        aria-invalid={errors?.field === 'instructions_suffix' ? 'true' : undefined}
        aria-describedby={`voice-suffix-help${errors?.field === 'instructions_suffix' ? ' voice-instructions_suffix-error' : ''}`}
        onInput={(e) => setForm({ ...form, instructionsSuffix: e.currentTarget.value })}
        placeholder="e.g. Keep answers under three sentences."
      />
      <p id="voice-suffix-help" class="small muted">
        Added after Groundwork’s own instructions (it cannot lift the rule to answer only from the knowledge base). {form.instructionsSuffix.length} / {MAX_INSTRUCTIONS_SUFFIX} characters.
      </p>
      <div id="voice-instructions_suffix-error">{fieldError('instructions_suffix')}</div>
      <p>
        <button class="primary" type="submit" disabled={busy || !current}>Save voice settings</button>
      </p>
      <Notice ok={saved} />
    </form>
  );
}

function Keys() {
  const { data, error, reload } = useLoad(() => gql(ApiKeys), []);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'full' | 'query'>('query');
  const [created, setCreated] = useState<ResultOf<typeof CreateApiKey>['createApiKey'] | null>(null);
  const [revoking, setRevoking] = useState<{ id: string; prefix: string } | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  return (
    <div class="card">
      <h2 style="margin-top:0">API keys</h2>
      <Notice error={error ?? formError} />
      <form class="row" onSubmit={async (e) => {
        e.preventDefault();
        try {
          setCreated((await gql(CreateApiKey, { ...(name ? { name } : {}), scope })).createApiKey);
          setName('');
          setFormError(null);
          void reload();
        } catch (err) {
          setFormError(errorMessage(err));
        }
      }}>
        <div class="grow">
          <label for="key-name">Name of a new key</label>
          <input id="key-name" value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} placeholder="e.g. CI" style="width:100%" />
        </div>
        <div>
          <label for="key-scope">Scope</label>
          <select id="key-scope" value={scope} onChange={(e) => setScope(e.currentTarget.value as 'full')} aria-describedby="key-scope-help">
            <option value="query">query: search and chat</option>
            <option value="full">full: everything</option>
          </select>
        </div>
        <button class="primary" type="submit">Create key</button>
      </form>
      <p id="key-scope-help" class="small muted">A <strong>query</strong> key can only search, chat and start widget sessions: give it to a website or app. A <strong>full</strong> key can also change and delete knowledge bases, documents and keys.</p>
      {created && (
        <div class="notice ok" role="status" data-testid="new-key">
          <p style="margin-top:0">New {created.key.scope} key — shown this once, store it now:</p>
          <pre>{created.apiKey}</pre>
          <CopyButton text={created.apiKey} label="Copy key" /> <button type="button" onClick={() => setCreated(null)}>Done</button>
        </div>
      )}
      <div class="table-wrap">
        <table>
          <thead><tr><th>Prefix</th><th>Name</th><th>Scope</th><th>Created</th><th>Last used</th><th>State</th><th><span class="skip">Actions</span></th></tr></thead>
          <tbody>
            {data?.apiKeys.map((k) => (
              <tr data-key={k.prefix}>
                <td data-label="Prefix"><code>{k.prefix}…</code></td><td data-label="Name">{k.name ?? ''}</td><td data-label="Scope">{k.scope}</td><td class="small" data-label="Created">{formatDate(k.createdAt)}</td><td class="small" data-label="Last used">{formatDate(k.lastUsedAt)}</td>
                <td data-label="State">{k.revokedAt ? <span class="badge failed">revoked</span> : <span class="badge ready">active</span>}</td>
                <td data-label="Actions">{!k.revokedAt && <button type="button" class="danger" aria-label={`Revoke ${k.prefix}`} onClick={() => setRevoking(k)}>Revoke</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {revoking && (
        <Confirm title={`Revoke ${revoking.prefix}…?`} confirmLabel="Revoke key" onClose={() => setRevoking(null)} onConfirm={async () => {
          await gql(RevokeApiKey, { id: revoking.id });
          await reload();
        }} focusAfter={() => document.querySelector<HTMLElement>(`tr[data-key="${revoking.prefix}"] td`)?.closest('.card')?.querySelector('h2')}>
          <p>Every program using this key stops working at once. Dashboard sessions stay signed in.</p>
        </Confirm>
      )}
    </div>
  );
}

export function SettingsView({ org }: { org: Org }) {
  return (
    <>
      <h1>Settings</h1>
      <Origins org={org} />
      <WidgetSwitches />
      <Voice org={org} />
      <Keys />
    </>
  );
}

function Meter({ label, used, max }: { label: string; used: number; max: number }) {
  return (
    <div style="margin-bottom:14px">
      <div class="row" style="justify-content:space-between"><span>{label}</span><span>{used} of {max}</span></div>
      <div class="meter" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={max} aria-valuenow={used}><span style={`width:${Math.min(100, (100 * used) / max)}%`} /></div>
    </div>
  );
}

export function UsageView({ org }: { org: Org }) {
  const { data, error } = useLoad(() => gql(Usage), []);
  const u = data?.usage;
  return (
    <>
      <h1>Usage</h1>
      <Notice error={error} />
      {u && (
        <div class="card">
          <p class="muted">Plan: {org.plan}</p>
          <Meter label="Knowledge bases" used={u.knowledgeBases} max={u.maxKnowledgeBases} />
          <Meter label="Documents" used={u.documents} max={u.maxDocuments} />
          <p>Questions asked: <strong>{u.questionsAsked}</strong></p>
          <p>Voice minutes: <strong>{u.voiceMinutes}</strong></p>
          <p>Voice tokens: <strong>{u.voiceInputTokens.toLocaleString('en')}</strong> in, <strong>{u.voiceOutputTokens.toLocaleString('en')}</strong> out</p>
        </div>
      )}
    </>
  );
}
