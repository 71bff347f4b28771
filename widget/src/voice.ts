/**
 * widget-voice.js: the voice conversation, loaded by the panel on the first microphone click (so
 * pages that never use voice never download it). Microphone -> capture worklet (24 kHz pcm16) ->
 * binary WebSocket frames to the gateway; gateway frames -> player worklet -> speakers; JSON control
 * frames per the widget<->gateway protocol v1. The panel owns all UI; this module reports events.
 */
import type { Citation } from './api';
import type { VoiceEnd, VoiceEvents, VoiceHandle, VoiceStart } from './voice-types';

const PROTOCOL = 'groundwork.voice.v1';
const PLAYBACK_RATE = 24_000;
/** Frames waiting in the socket beyond this (about 2 s of audio) are dropped, not queued without bound. */
const MAX_BUFFERED_BYTES = 96_000;
/** After `stop`, how long to wait for the gateway's normal close before closing ourselves. */
const STOP_GRACE_MS = 2_000;

type ServerMessage =
  | { type: 'ready'; session_id: string }
  | { type: 'state'; state: 'listening' | 'thinking' | 'speaking' }
  | { type: 'transcript'; role: 'user' | 'assistant'; delta?: string; text?: string; final?: boolean }
  | { type: 'citations'; citations: Citation[] }
  | { type: 'interrupt' }
  | { type: 'notice'; code: string; message: string }
  | { type: 'error'; code: string; message: string };

function micFailure(err: unknown): VoiceEnd {
  const name = err instanceof DOMException ? err.name : '';
  if (name === 'NotAllowedError' || name === 'SecurityError') return { kind: 'error', code: 'microphone_denied' };
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return { kind: 'error', code: 'microphone_missing' };
  return { kind: 'error', code: 'microphone_error', message: err instanceof Error ? err.message : String(err) };
}

export function startVoice(start: VoiceStart, events: VoiceEvents): VoiceHandle {
  let ended = false;
  let ready = false;
  let stream: MediaStream | null = null;
  let capture: AudioContext | null = null;
  let playback: AudioContext | null = null;
  let player: AudioWorkletNode | null = null;
  let serverError: { code: string; message: string } | null = null;
  let stopTimer: ReturnType<typeof setTimeout> | undefined;
  /** The next audio frame starts a new assistant item: the player's played counter restarts there. */
  let newItem = true;

  const url = new URL('api/widget/voice', start.base);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (start.sessionId) url.searchParams.set('session_id', start.sessionId);
  events.onState('connecting');
  const ws = new WebSocket(url.href, [PROTOCOL, `bearer.${start.token}`]);
  ws.binaryType = 'arraybuffer';

  /** Releases the microphone first (the browser's recording indicator goes away), then audio. */
  function release() {
    for (const track of stream?.getTracks() ?? []) track.stop();
    stream = null;
    void capture?.close().catch(() => {});
    void playback?.close().catch(() => {});
    capture = playback = null;
    player = null;
    clearTimeout(stopTimer);
  }

  function end(reason: VoiceEnd) {
    if (ended) return;
    ended = true;
    release();
    if (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN) ws.close(1000);
    events.onEnd(reason);
  }

  async function setUpAudio() {
    const workletUrl = new URL(start.workletFile, `${start.base}embed/`).href;
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
      });
    } catch (err) {
      end(micFailure(err));
      return;
    }
    if (ended) return release();
    // The capture context runs at the device's own rate; the worklet resamples to 24 kHz.
    capture = new AudioContext();
    playback = new AudioContext({ sampleRate: PLAYBACK_RATE });
    await Promise.all([capture.audioWorklet.addModule(workletUrl), playback.audioWorklet.addModule(workletUrl)]);
    if (ended || !capture || !playback || !stream) return;
    const source = capture.createMediaStreamSource(stream);
    const recorder = new AudioWorkletNode(capture, 'gw-capture', { numberOfInputs: 1, numberOfOutputs: 1, channelCount: 1 });
    recorder.port.onmessage = (e: MessageEvent<ArrayBuffer>) => {
      if (!ready || ws.readyState !== WebSocket.OPEN) return;
      if (ws.bufferedAmount > MAX_BUFFERED_BYTES) return; // a stalled network drops audio rather than growing memory
      ws.send(e.data);
    };
    // Connected to the destination so the graph pulls it; it outputs silence.
    source.connect(recorder).connect(capture.destination);
    player = new AudioWorkletNode(playback, 'gw-player', { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [1] });
    player.port.onmessage = (e: MessageEvent) => onPlayer(e.data);
    player.connect(playback.destination);
    await Promise.all([capture.resume(), playback.resume()]);
    events.onMicrophone(true);
  }

  function onPlayer(msg: { type: 'progress' | 'cleared'; played: number; total: number; playing?: boolean }) {
    const playedMs = Math.round((msg.played * 1000) / PLAYBACK_RATE);
    events.onPlayback(playedMs, Math.round((msg.total * 1000) / PLAYBACK_RATE));
    if (msg.type === 'cleared' && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'interrupted', played_ms: playedMs }));
  }

  function onMessage(msg: ServerMessage) {
    switch (msg.type) {
      case 'ready':
        ready = true;
        events.onReady(msg.session_id);
        events.onState('listening');
        break;
      case 'state':
        if (msg.state === 'thinking') newItem = true;
        events.onState(msg.state);
        break;
      case 'transcript':
        if (msg.role === 'assistant' && msg.final) newItem = true;
        events.onTranscript(msg.role, msg.final ? { text: msg.text ?? '' } : { delta: msg.delta ?? '' });
        break;
      case 'citations':
        events.onCitations(msg.citations ?? []);
        break;
      case 'interrupt':
        newItem = true;
        if (player) player.port.postMessage({ type: 'clear' });
        else if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'interrupted', played_ms: 0 }));
        break;
      case 'notice':
        // An answer that failed or was cut short, or a reconnect: said in the conversation, which goes on.
        if (msg.message) events.onTranscript('assistant', { text: msg.message });
        break;
      case 'error':
        serverError = { code: msg.code, message: msg.message };
        break;
    }
  }

  ws.onmessage = (e: MessageEvent) => {
    if (ended) return;
    if (e.data instanceof ArrayBuffer) {
      if (!player) return;
      if (newItem) {
        player.port.postMessage({ type: 'mark' });
        newItem = false;
      }
      player.port.postMessage({ type: 'audio', pcm: e.data }, [e.data]);
      return;
    }
    try {
      onMessage(JSON.parse(String(e.data)) as ServerMessage);
    } catch {
      // a frame we do not understand is ignored; the gateway only sends the protocol's messages
    }
  };
  ws.onclose = (e: CloseEvent) => {
    if (ended) return;
    if (serverError) end({ kind: 'error', code: serverError.code, message: serverError.message });
    else if (e.code === 1000 || stopTimer !== undefined) end({ kind: 'stopped' });
    else if (e.code >= 4000 && e.reason) end({ kind: 'error', code: e.reason });
    else end({ kind: 'error', code: 'connection_lost' });
  };

  setUpAudio().catch((err) => end({ kind: 'error', code: 'audio_error', message: err instanceof Error ? err.message : String(err) }));

  return {
    stop() {
      if (ended || stopTimer !== undefined) return;
      // The microphone and the assistant's voice go off now; the gateway gets a moment to store the
      // turn and close normally.
      for (const track of stream?.getTracks() ?? []) track.stop();
      void playback?.suspend().catch(() => {});
      events.onMicrophone(false);
      if (ws.readyState !== WebSocket.OPEN) return end({ kind: 'stopped' });
      ws.send(JSON.stringify({ type: 'stop' }));
      stopTimer = setTimeout(() => end({ kind: 'stopped' }), STOP_GRACE_MS);
    },
  };
}
