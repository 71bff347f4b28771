/**
 * widget.js: what every page view of the host site downloads. It reads its own script tag, renders
 * the chat bubble in a shadow root and exposes `window.Groundwork`; the chat panel (UI, API client,
 * streaming) is a separate module loaded on first open, or earlier when the pointer or focus reaches
 * the bubble. Any failure is caught and logged: the host page must never break because of us.
 *
 * Placement: the root is a manual popover, so it lives in the browser's top layer, above any
 * z-index the page uses; browsers without popovers get position: fixed at the highest z-index.
 */
import { DEFAULT_VOICE_BACKGROUND_SECONDS, readConfig } from './config';
import { adoptStyles } from './dom';
import { icon, ICON_CHAT, ICON_CLOSE } from './icons';
import { LOADER_CSS } from './loader-styles';
import { sessionStore } from './storage';
import type { PanelController, PanelModule, SessionStore, WidgetConfig } from './types';

// Only readable while this script runs synchronously; everything else happens later.
const currentScript = document.currentScript as HTMLScriptElement | null;

const TAG = 'groundwork-chat';

type GroundworkApi = { open(): void; close(): void; toggle(): void; newConversation(): void; isOpen(): boolean };

declare global {
  interface Window {
    Groundwork?: GroundworkApi;
  }
}

function boot() {
  const found = readConfig(currentScript ?? document.querySelector<HTMLScriptElement>('script[src*="/embed/widget.js"][data-org]'));
  if ('problems' in found) {
    console.error(`[Groundwork] The chat widget is not shown: ${found.problems.join('; ')}.`);
    return;
  }
  if (customElements.get(TAG)) {
    console.error('[Groundwork] The chat widget script is included more than once; only the first one is used.');
    return;
  }
  // Constructed by us with its config, never by the parser, so the constructor takes an argument.
  customElements.define(TAG, GroundworkChat as unknown as CustomElementConstructor);
  const widget = new GroundworkChat(found.config);
  const mount = () => document.body.appendChild(widget);
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount, { once: true });
  window.Groundwork = Object.freeze({
    open: () => widget.open(),
    close: () => widget.close(),
    toggle: () => (widget.isOpen ? widget.close() : widget.open()),
    newConversation: () => widget.newConversation(),
    isOpen: () => widget.isOpen,
  });
}

const supportsPopover = typeof HTMLElement !== 'undefined' && 'popover' in HTMLElement.prototype;

class GroundworkChat extends HTMLElement {
  isOpen = false;
  private readonly shadow: ShadowRoot;
  private readonly root: HTMLDivElement;
  private readonly panelSlot: HTMLDivElement;
  private readonly bubble: HTMLButtonElement;
  private readonly store: SessionStore;
  private panel: PanelController | null = null;
  private loading: Promise<PanelController> | null = null;
  private returnFocus: HTMLElement | null = null;

  constructor(private readonly config: WidgetConfig = { org: '', kb: '', theme: 'light', voice: false, voiceBackgroundSeconds: DEFAULT_VOICE_BACKGROUND_SECONDS, base: '' }) {
    super();
    this.store = sessionStore(config.org, config.kb);
    this.shadow = this.attachShadow({ mode: 'open' });
    adoptStyles(this.shadow, LOADER_CSS);
    this.root = document.createElement('div');
    this.root.className = 'root';
    if (supportsPopover) this.root.setAttribute('popover', 'manual');
    this.panelSlot = document.createElement('div');
    this.panelSlot.className = 'slot';
    this.bubble = document.createElement('button');
    this.bubble.type = 'button';
    this.bubble.className = 'bubble';
    this.bubble.setAttribute('aria-haspopup', 'dialog');
    this.bubble.setAttribute('aria-controls', 'gw-panel');
    this.bubble.append(icon(ICON_CHAT, 'ic-chat'), icon(ICON_CLOSE, 'ic-close'));
    this.setExpanded(false);
    this.root.append(this.panelSlot, this.bubble);
    this.shadow.append(this.root);

    this.bubble.addEventListener('click', () => (this.isOpen ? this.close() : this.open()));
    // Intent to open: fetch the panel code now so the click feels instant.
    const prefetch = () => void this.loadPanel().catch(() => {});
    this.bubble.addEventListener('pointerenter', prefetch, { once: true });
    this.bubble.addEventListener('focus', prefetch, { once: true });
    this.root.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.isOpen) {
        e.preventDefault();
        e.stopPropagation();
        this.close();
      }
    });
    this.applyTheme();
  }

  connectedCallback() {
    if (supportsPopover && !this.root.matches(':popover-open')) {
      try {
        this.root.showPopover();
      } catch {
        // not in the top layer (e.g. a modal dialog blocks it): still rendered with its z-index
      }
    }
  }

  open() {
    if (this.isOpen) return;
    this.isOpen = true;
    const active = document.activeElement;
    this.returnFocus = active instanceof HTMLElement && active !== document.body && active !== (this as HTMLElement) ? active : null;
    this.root.setAttribute('data-open', '');
    this.setExpanded(true);
    this.bubble.setAttribute('aria-busy', 'true');
    this.loadPanel().then(
      (panel) => {
        this.bubble.removeAttribute('aria-busy');
        if (this.isOpen) panel.show();
      },
      (err) => {
        this.bubble.removeAttribute('aria-busy');
        console.error('[Groundwork] Could not load the chat panel', err);
        this.showLoadError();
      },
    );
  }

  close() {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.root.removeAttribute('data-open');
    this.setExpanded(false);
    this.panel?.hide();
    this.panelSlot.querySelector('.load-error')?.remove();
    const target = this.returnFocus?.isConnected ? this.returnFocus : this.bubble;
    this.returnFocus = null;
    target.focus();
  }

  newConversation() {
    if (this.panel) this.panel.newConversation();
    else this.store.clear();
  }

  private setExpanded(open: boolean) {
    this.bubble.setAttribute('aria-expanded', String(open));
    this.bubble.setAttribute('aria-label', open ? 'Close chat' : 'Open chat');
  }

  private applyTheme() {
    const { theme } = this.config;
    if (theme !== 'auto') {
      this.root.setAttribute('data-theme', theme);
      return;
    }
    const query = window.matchMedia?.('(prefers-color-scheme: dark)');
    const apply = () => this.root.setAttribute('data-theme', query?.matches ? 'dark' : 'light');
    apply();
    query?.addEventListener?.('change', apply);
  }

  private loadPanel(): Promise<PanelController> {
    this.loading ??= (import(new URL(__GW_PANEL_FILE__, `${this.config.base}embed/`).href) as Promise<PanelModule>).then(
      (mod) =>
        (this.panel = mod.mountPanel({
          config: this.config,
          container: this.panelSlot,
          shadow: this.shadow,
          store: this.store,
          requestClose: () => this.close(),
        })),
      (err) => {
        this.loading = null; // try again on the next open
        throw err;
      },
    );
    return this.loading;
  }

  private showLoadError() {
    if (this.panelSlot.querySelector('.load-error')) return;
    const box = document.createElement('div');
    box.className = 'load-error';
    box.setAttribute('role', 'alert');
    box.textContent = "The chat couldn't be loaded. Check your connection and try again.";
    this.panelSlot.append(box);
  }
}

try {
  boot();
} catch (err) {
  console.error('[Groundwork] The chat widget failed to start', err);
}
