/**
 * widget-panel.js: the chat panel, loaded by the loader on first open. Starts a widget session,
 * restores the stored conversation, streams answers token by token and shows their sources.
 *
 * Three parts: the conversation store (conversation-store.ts: messages, session, streaming,
 * persistence; no DOM), the views that render it (panel-views.ts) and the voice controls
 * (voice-controls.ts), which feed spoken turns into the same store.
 */
import { createConversation } from './conversation-store';
import { mountViews } from './panel-views';
import type { PanelController, PanelHost } from './types';
import { mountVoiceControls } from './voice-controls';

export { renderSources } from './panel-views';

export function mountPanel(host: PanelHost): PanelController {
  const conversation = createConversation(host.config, host.store);
  const view = mountViews(host, conversation);
  const voice = mountVoiceControls(host.config, conversation, view);
  let started = false;

  const controller: PanelController = {
    show() {
      if (!started) {
        started = true;
        void conversation.start();
      }
      view.show();
    },
    hide() {
      voice.stop();
      view.panel.hidden = true;
    },
    newConversation() {
      voice.reset();
      conversation.reset();
      if (!conversation.state.unavailable && !view.panel.hidden) view.input.focus();
    },
  };
  view.newButton.addEventListener('click', () => controller.newConversation());
  return controller;
}
