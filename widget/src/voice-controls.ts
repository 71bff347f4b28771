/**
 * The panel's voice controls (data-voice="true", and the session says voice is available): the
 * microphone button, which loads widget-voice.js on first use, and the voice bar showing and
 * announcing the voice state (connecting, listening, thinking, speaking). Spoken turns go into the
 * conversation store, so they appear as chat bubbles like typed ones, in the same conversation.
 */
import { WidgetError, type Session } from './api';
import type { Conversation } from './conversation-store';
import { h } from './dom';
import { icon, ICON_MIC } from './icons';
import type { PanelView } from './panel-views';
import type { WidgetConfig } from './types';
import { voiceMessage, voiceRefusalClosesChat, VOICE_STATE_TEXT, voiceRefusedForGood } from './voice-messages';
import type { VoiceEnd, VoiceHandle, VoiceModule, VoiceState } from './voice-types';

export function mountVoiceControls(config: WidgetConfig, conversation: Conversation, view: PanelView) {
  const mic = h(
    'button',
    { type: 'button', class: 'icon-btn mic', 'aria-label': 'Talk to the assistant', 'aria-pressed': 'false', title: 'Voice', hidden: true },
    icon(ICON_MIC),
  );
  const voiceText = h('span', { class: 'voice-state' });
  // Always in the tree (a live region that appears together with its text is often not read out).
  const voiceLive = h('div', { class: 'sr-only voice-live', 'aria-live': 'polite', 'aria-atomic': 'true' });
  const voiceStop = h('button', { type: 'button', class: 'voice-stop' }, 'End voice');
  const voiceBar = h('div', { class: 'voice', hidden: true }, h('span', { class: 'voice-dot', 'aria-hidden': 'true' }), voiceText, voiceStop);
  view.form.insertBefore(mic, view.send);
  view.panel.insertBefore(voiceBar, view.form);
  view.panel.append(voiceLive);

  let voice: VoiceHandle | null = null;
  let voiceLoad: Promise<VoiceModule> | null = null;
  let hiddenTimer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped when the conversation is replaced: late events of an earlier voice session are ignored. */
  let voiceGeneration = 0;

  // The microphone is offered once, when the conversation connects.
  conversation.subscribe((state, previous) => {
    if (state.session && !previous.session && config.voice) offer(state.session);
  });

  function offer(s: Session) {
    if (s.voice.available) mic.hidden = false;
    else
      console.info(
        `[Groundwork] data-voice is set, but the microphone is hidden: voice is not available for this assistant (${s.voice.reason ?? 'it needs the Starter plan or above and Voice switched on in Settings'}).`,
      );
  }

  function loadVoice(): Promise<VoiceModule> {
    voiceLoad ??= (import(new URL(__GW_VOICE_FILE__, `${config.base}embed/`).href) as Promise<VoiceModule>).catch((err) => {
      voiceLoad = null;
      throw err;
    });
    return voiceLoad;
  }

  function setVoiceState(state: VoiceState | null) {
    voiceBar.hidden = state === null;
    if (state === null) {
      voiceBar.removeAttribute('data-state');
      voiceText.textContent = voiceLive.textContent = '';
      return;
    }
    voiceBar.setAttribute('data-state', state);
    voiceText.textContent = VOICE_STATE_TEXT[state];
    voiceLive.textContent = VOICE_STATE_TEXT[state];
  }

  function setMicLive(live: boolean) {
    mic.classList.toggle('live', live);
    voiceBar.classList.toggle('live', live);
  }

  function setVoiceActive(active: boolean) {
    mic.setAttribute('aria-pressed', String(active));
    mic.setAttribute('aria-label', active ? 'Stop talking' : 'Talk to the assistant');
    mic.title = active ? 'Stop voice' : 'Voice';
  }

  function onVoiceEnd(reason: VoiceEnd) {
    voice = null;
    clearTimeout(hiddenTimer);
    conversation.voiceEnded();
    setMicLive(false);
    setVoiceActive(false);
    setVoiceState(null);
    voiceBar.removeAttribute('data-played-ms');
    if (reason.kind === 'stopped') {
      voiceLive.textContent = 'Voice conversation ended.';
      return;
    }
    const why = `${reason.code}${reason.message ? ` (${reason.message})` : ''}`;
    if (voiceRefusalClosesChat(reason.code)) {
      conversation.refuse(voiceMessage(reason.code), why);
      return;
    }
    if (reason.message || !reason.code.startsWith('microphone')) console.warn(`[Groundwork] The voice conversation ended: ${why}`);
    if (reason.code === 'invalid_token') conversation.dropSession(); // a fresh token on the next try
    if (voiceRefusedForGood(reason.code)) {
      mic.hidden = true;
      if (!view.panel.hidden) view.input.focus();
    }
    conversation.notify(voiceMessage(reason.code));
  }

  async function startVoice() {
    if (voice || conversation.state.unavailable) return;
    conversation.clearNotice();
    setVoiceActive(true);
    setVoiceState('connecting');
    let starting: VoiceHandle | null = null;
    const pending: VoiceHandle = { stop: () => starting?.stop() ?? onVoiceEnd({ kind: 'stopped' }) };
    voice = pending;
    let mod: VoiceModule;
    let s: Session;
    try {
      [mod, s] = await Promise.all([loadVoice(), conversation.getSession()]);
    } catch (err) {
      if (voice !== pending) return; // stopped meanwhile
      console.error('[Groundwork] Voice could not be started', err);
      onVoiceEnd({ kind: 'error', code: err instanceof WidgetError ? 'session_error' : 'load_error' });
      return;
    }
    if (voice !== pending) return;
    const generation = voiceGeneration;
    const live =
      <A extends unknown[]>(fn: (...args: A) => void) =>
      (...args: A) => {
        if (generation === voiceGeneration) fn(...args);
      };
    starting = mod.startVoice(
      { base: config.base, workletFile: __GW_AUDIO_FILE__, token: s.token, sessionId: conversation.sessionId() },
      {
        onState: live((state: VoiceState) => {
          if (state === 'thinking') conversation.voiceThinking();
          else if (state === 'listening') conversation.voiceListening();
          setVoiceState(state);
        }),
        onReady: live(conversation.keepSessionId),
        onMicrophone: live(setMicLive),
        onTranscript: live(conversation.voiceTranscript),
        onCitations: live(conversation.voiceCitations),
        onPlayback: live((_itemMs: number, totalMs: number) => voiceBar.setAttribute('data-played-ms', String(totalMs))),
        onEnd: live(onVoiceEnd),
      },
    );
    voice = starting;
  }

  function stopVoice(reason?: string) {
    if (!voice) return;
    voice.stop();
    if (reason) conversation.notify(reason);
  }

  mic.addEventListener('click', () => (voice ? stopVoice() : void startVoice()));
  voiceStop.addEventListener('click', () => {
    stopVoice();
    if (!view.panel.hidden) mic.focus();
  });
  document.addEventListener('visibilitychange', () => {
    clearTimeout(hiddenTimer);
    if (document.visibilityState === 'hidden' && voice) {
      hiddenTimer = setTimeout(() => stopVoice(voiceMessage('background')), config.voiceBackgroundSeconds * 1000);
    }
  });

  return {
    stop: () => stopVoice(),
    /** Ends any voice session at once, and drops its late events: the conversation is being replaced. */
    reset() {
      if (!voice) return;
      stopVoice();
      onVoiceEnd({ kind: 'stopped' });
      voiceGeneration++;
    },
  };
}
