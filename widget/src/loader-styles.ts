/**
 * Styles of the always-loaded part: theme variables, the fixed root and the bubble. Pixel units
 * only (a host page's html font-size reaches rem units inside a shadow root), and the host element
 * is reset with !important, which from inside the shadow tree wins over any page rule, even
 * `* { all: unset !important }`.
 */
export const LOADER_CSS = `
:host{all:initial!important;display:block!important;position:static!important;width:0!important;height:0!important;margin:0!important;padding:0!important;border:0!important;visibility:visible!important;opacity:1!important;transform:none!important;filter:none!important;contain:none!important}
.root{all:initial;position:fixed;inset:auto 20px 20px auto;z-index:2147483647;display:flex;flex-direction:column;align-items:flex-end;gap:14px;margin:0;padding:0;border:0;background:transparent;overflow:visible;width:auto;height:auto;max-width:none;max-height:none;pointer-events:none;
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;letter-spacing:normal;text-align:left;color:var(--gw-text);color-scheme:light;-webkit-font-smoothing:antialiased;
--gw-bg:#fff;--gw-surface:#f2f4f7;--gw-text:#1b1f24;--gw-muted:#5c6675;--gw-border:#e1e5ea;--gw-accent:#2454d6;--gw-on-accent:#fff;--gw-link:#1f4fc9;--gw-focus:#2454d6;--gw-ring:rgba(36,84,214,.28);--gw-warn-bg:#fff4e5;--gw-warn-text:#6b3d00;--gw-shadow:0 18px 48px rgba(15,23,42,.22),0 4px 12px rgba(15,23,42,.12)}
.root[data-theme=dark]{color-scheme:dark;--gw-bg:#16181d;--gw-surface:#23272f;--gw-text:#eceef2;--gw-muted:#a3acb9;--gw-border:#323741;--gw-accent:#3d6ef0;--gw-on-accent:#fff;--gw-link:#9bb8ff;--gw-focus:#8fb0ff;--gw-ring:rgba(143,176,255,.35);--gw-warn-bg:#3a2a12;--gw-warn-text:#ffd89a;--gw-shadow:0 18px 48px rgba(0,0,0,.55),0 4px 12px rgba(0,0,0,.35)}
.root *,.root *::before,.root *::after{box-sizing:border-box}
.slot{display:contents}
.bubble{all:unset;box-sizing:border-box;pointer-events:auto;width:56px;height:56px;border-radius:50%;display:grid;place-items:center;cursor:pointer;background:var(--gw-accent);color:var(--gw-on-accent);box-shadow:0 8px 24px rgba(15,23,42,.28),0 2px 6px rgba(15,23,42,.18);transition:transform .15s ease}
.bubble:hover{transform:scale(1.06)}
.bubble:focus-visible{outline:3px solid var(--gw-focus);outline-offset:3px}
.bubble svg{width:28px;height:28px;display:block}
.bubble .ic-close,.root[data-open] .bubble .ic-chat{display:none}
.root[data-open] .bubble .ic-close{display:block}
.bubble[aria-busy=true]{cursor:progress}
.load-error{pointer-events:auto;max-width:260px;padding:10px 12px;border-radius:12px;background:var(--gw-bg);color:var(--gw-text);border:1px solid var(--gw-border);box-shadow:var(--gw-shadow)}
@media (max-width:480px){.root{inset:auto 16px 16px auto}.root[data-open]>.bubble{display:none}}
@media (prefers-reduced-motion:reduce){.bubble{transition:none}}
`;
