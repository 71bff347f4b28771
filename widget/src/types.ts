/** The contract between the loader (widget.js) and the lazily loaded panel (widget-panel.js). */

export type Theme = 'light' | 'dark' | 'auto';

export type WidgetConfig = {
  org: string;
  kb: string;
  theme: Theme;
  /** data-voice="true": show the microphone if the server says voice is available. */
  voice: boolean;
  /** data-voice-background-seconds: a voice conversation in a tab hidden this long is stopped (0: at once). */
  voiceBackgroundSeconds: number;
  /** The service's base URL (where /api and /embed live), ending in "/". */
  base: string;
};

export type SessionStore = { get(): string | null; set(id: string): void; clear(): void };

export type PanelHost = {
  config: WidgetConfig;
  /** Element the panel renders into, inside the widget's shadow root. */
  container: HTMLElement;
  shadow: ShadowRoot;
  store: SessionStore;
  /** Ask the loader to close (it owns open state and where focus goes back to). */
  requestClose(): void;
};

export type PanelController = {
  show(): void;
  hide(): void;
  newConversation(): void;
};

export type PanelModule = { mountPanel(host: PanelHost): PanelController };
