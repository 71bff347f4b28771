/**
 * Styles of the chat panel (loaded with it). Theme variables come from the loader's root. On phones
 * the panel is full-screen and the question field uses 16px text (iOS zooms into smaller fields).
 */
export const PANEL_CSS = `
.panel{pointer-events:auto;display:flex;flex-direction:column;width:380px;height:min(640px,calc(100vh - 110px));min-height:320px;background:var(--gw-bg);color:var(--gw-text);border:1px solid var(--gw-border);border-radius:18px;box-shadow:var(--gw-shadow);overflow:hidden;animation:gw-in .18s ease-out;transform-origin:bottom right}
.panel[hidden]{display:none}
@keyframes gw-in{from{opacity:0;transform:translateY(8px) scale(.98)}to{opacity:1;transform:none}}
.head{display:flex;align-items:center;gap:6px;padding:12px 10px 12px 16px;border-bottom:1px solid var(--gw-border);background:var(--gw-bg)}
.avatar{flex:none;width:32px;height:32px;border-radius:50%;display:grid;place-items:center;background:var(--gw-accent);color:var(--gw-on-accent)}
.avatar svg{width:18px;height:18px}
.title{flex:1;min-width:0;display:flex;flex-direction:column}
.title strong{font-size:15px;font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.title span{font-size:12px;color:var(--gw-muted)}
.icon-btn{all:unset;box-sizing:border-box;flex:none;width:36px;height:36px;border-radius:10px;display:grid;place-items:center;color:var(--gw-muted);cursor:pointer}
.icon-btn svg{width:20px;height:20px;display:block}
.icon-btn:hover{background:var(--gw-surface);color:var(--gw-text)}
.icon-btn:focus-visible,.send:focus-visible,.log:focus-visible,.retry:focus-visible{outline:3px solid var(--gw-focus);outline-offset:-1px}
.log{flex:1;min-height:0;overflow-y:auto;padding:16px;display:flex;flex-direction:column;gap:12px;overscroll-behavior:contain;scroll-behavior:smooth}
.msg{max-width:86%;padding:10px 13px;border-radius:16px;white-space:pre-wrap;overflow-wrap:anywhere}
.msg.user{align-self:flex-end;background:var(--gw-accent);color:var(--gw-on-accent);border-bottom-right-radius:5px}
.msg.bot{align-self:flex-start;background:var(--gw-surface);border-bottom-left-radius:5px}
.msg.note{align-self:center;max-width:100%;padding:2px 8px;background:none;color:var(--gw-muted);font-size:12px;text-align:center}
.msg.greeting{align-self:flex-start;background:var(--gw-surface);border-bottom-left-radius:5px}
.ref{display:inline-block;min-width:16px;padding:0 3px;margin:0 1px;border-radius:5px;background:var(--gw-bg);border:1px solid var(--gw-border);font-size:10.5px;line-height:15px;font-weight:600;text-align:center;vertical-align:1px;color:var(--gw-muted)}
.sources{margin-top:10px;padding-top:8px;border-top:1px solid var(--gw-border);font-size:12.5px;line-height:1.4;white-space:normal}
.sources-title{font-weight:600;font-size:11px;letter-spacing:.04em;text-transform:uppercase;color:var(--gw-muted);margin-bottom:4px}
.sources ol{list-style:none;margin:0;padding:0;display:grid;gap:5px}
.sources li{display:flex;gap:7px;align-items:baseline;min-width:0}
.sources .num{flex:none;font-weight:600;color:var(--gw-muted);font-size:11px}
.sources .src{min-width:0;overflow-wrap:anywhere}
.sources a{color:var(--gw-link);text-decoration:underline;text-underline-offset:2px;cursor:pointer}
.sources a:focus-visible{outline:2px solid var(--gw-focus);outline-offset:1px;border-radius:3px}
.sources .meta{color:var(--gw-muted)}
.typing{display:flex;gap:4px;align-items:center;padding:14px}
.typing i{width:7px;height:7px;border-radius:50%;background:var(--gw-muted);opacity:.35;animation:gw-dot 1.2s infinite ease-in-out}
.typing i:nth-child(2){animation-delay:.15s}.typing i:nth-child(3){animation-delay:.3s}
@keyframes gw-dot{0%,60%,100%{opacity:.3;transform:none}30%{opacity:1;transform:translateY(-3px)}}
.notice{display:flex;gap:8px;align-items:flex-start;margin:0 12px 8px;padding:9px 12px;border-radius:12px;background:var(--gw-warn-bg);color:var(--gw-warn-text);font-size:13px}
.notice[hidden]{display:none}
.notice svg{flex:none;width:18px;height:18px;margin-top:1px}
.retry{all:unset;cursor:pointer;text-decoration:underline;font-weight:600;margin-left:4px;border-radius:4px}
.refusal{margin:auto;max-width:290px;text-align:center;color:var(--gw-muted);display:flex;flex-direction:column;align-items:center;gap:10px;padding:24px 8px}
.refusal svg{width:32px;height:32px;color:var(--gw-muted)}
.refusal strong{color:var(--gw-text);font-size:15px}
.composer{display:flex;align-items:flex-end;gap:8px;padding:10px 12px 8px;border-top:1px solid var(--gw-border)}
.composer[hidden]{display:none}
.input{all:unset;box-sizing:border-box;flex:1;min-width:0;min-height:42px;max-height:132px;padding:10px 13px;border:1px solid var(--gw-border);border-radius:14px;background:var(--gw-bg);color:var(--gw-text);font:inherit;line-height:1.45;white-space:pre-wrap;overflow-wrap:anywhere;overflow-y:auto;cursor:text}
.input::placeholder{color:var(--gw-muted);opacity:1}
.input:focus{border-color:var(--gw-focus);box-shadow:0 0 0 3px var(--gw-ring)}
.send{all:unset;box-sizing:border-box;flex:none;width:42px;height:42px;border-radius:14px;display:grid;place-items:center;background:var(--gw-accent);color:var(--gw-on-accent);cursor:pointer}
.send svg{width:20px;height:20px;display:block}
.send[aria-disabled=true]{opacity:.45;cursor:default}
.icon-btn[hidden],.foot[hidden]{display:none}
.mic[aria-pressed=true]{background:var(--gw-accent);color:var(--gw-on-accent)}
.mic.live{box-shadow:0 0 0 3px var(--gw-ring)}
.voice{display:flex;align-items:center;gap:10px;margin:0 12px 8px;padding:8px 10px 8px 12px;border-radius:12px;background:var(--gw-surface);color:var(--gw-text);font-size:13px}
.voice[hidden]{display:none}
.voice-dot{flex:none;width:10px;height:10px;border-radius:50%;background:var(--gw-muted)}
.voice.live .voice-dot{background:#dc2626;animation:gw-pulse 1.4s infinite ease-in-out}
.voice[data-state=speaking] .voice-dot{background:var(--gw-accent)}
.voice[data-state=thinking] .voice-dot{background:var(--gw-muted)}
@keyframes gw-pulse{0%,100%{opacity:1;transform:none}50%{opacity:.45;transform:scale(.8)}}
.voice-state{flex:1;min-width:0}
.voice-stop{all:unset;cursor:pointer;font-weight:600;font-size:12.5px;padding:4px 10px;border-radius:8px;border:1px solid var(--gw-border);background:var(--gw-bg);color:var(--gw-text)}
.voice-stop:focus-visible{outline:3px solid var(--gw-focus);outline-offset:1px}
.msg.user.pending{opacity:.7}
.rate{display:flex;flex-wrap:wrap;gap:4px;margin-top:8px}
.rate-btn{all:unset;cursor:pointer;display:inline-flex;align-items:center;padding:4px 8px;border-radius:8px;border:1px solid var(--gw-border);background:var(--gw-bg);color:var(--gw-text)}
.rate-btn svg{width:16px;height:16px;display:block}
.rate-btn[aria-pressed=true] svg{fill:var(--gw-accent);fill-opacity:.25}
.rate-btn[aria-pressed=true]{border-color:var(--gw-accent);box-shadow:0 0 0 1px var(--gw-accent)}
.rate-btn:focus-visible,.rate-note:focus-visible{outline:3px solid var(--gw-focus);outline-offset:1px}
.rate-note{all:unset;box-sizing:border-box;flex:1 1 100%;padding:5px 8px;border:1px solid var(--gw-border);border-radius:8px;background:var(--gw-bg);color:var(--gw-text);font-size:13px}
.foot{display:flex;justify-content:space-between;gap:8px;padding:0 14px 8px;font-size:11px;color:var(--gw-muted)}
.count[hidden]{visibility:hidden}
.count.over{color:#c2410c}
.sr-only{position:absolute!important;width:1px;height:1px;margin:-1px;padding:0;border:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:480px){.panel{position:fixed;inset:0;width:auto;height:auto;min-height:0;border:0;border-radius:0;animation:none}.input{font-size:16px}}
@media (prefers-reduced-motion:reduce){.panel,.typing i,.voice.live .voice-dot{animation:none}.log{scroll-behavior:auto}}
`;
