/**
 * The audio of one voice session, both ways: browser pcm16 frames go upstream as
 * `input_audio_buffer.append`, the model's audio goes to the browser as binary frames. Each side
 * is bounded by maxBufferedBytes: audio beyond it is dropped (late real-time audio is worthless),
 * and a browser that stops reading altogether is reported as stuck.
 */
import type WebSocket from 'ws';
import type { VoiceLimits } from './limits';
import { MAX_AUDIO_FRAME_BYTES, SAMPLE_RATE } from './protocol';

const BYTES_PER_MS = (SAMPLE_RATE * 2) / 1000;
/**
 * `input_audio_buffer.append` is built around the frame's base64 as bytes rather than
 * JSON.stringify'd: base64 needs no escaping, and at 50 frames a second per session the escape scan,
 * the string's UTF-8 encoding and ws's two-buffer write were a third of the gateway's own CPU.
 */
const APPEND_HEAD = Buffer.from('{"type":"input_audio_buffer.append","audio":"');
const APPEND_TAIL = Buffer.from('"}');

export type VoiceSessionStats = { audioInBytes: number; audioOutBytes: number; droppedIn: number; droppedOut: number };

/**
 * Benchmarks: `relayed` is the time from an upstream audio delta's arrival to its frame handed to
 * the browser socket; `forwarded` from a browser frame's arrival to its append handed upstream;
 * `appended` the frames each append carried.
 */
export type VoiceObserver = { relayed(ms: number): void; forwarded?(ms: number): void; appended?(frames: number): void };

/** Milliseconds of pcm16 audio at the protocol's rate in `bytes`. */
export const pcmMs = (bytes: number) => bytes / BYTES_PER_MS;

/** Why a binary frame is not pcm16 audio the gateway takes, or null if it is. */
export function audioFrameProblem(frame: Buffer): string | null {
  if (frame.length === 0 || frame.length > MAX_AUDIO_FRAME_BYTES || frame.length % 2 !== 0) {
    return `Audio frames must be pcm16: an even number of bytes, at most ${MAX_AUDIO_FRAME_BYTES}`;
  }
  return null;
}

export class AudioRelay {
  readonly stats: VoiceSessionStats = { audioInBytes: 0, audioOutBytes: 0, droppedIn: 0, droppedOut: 0 };
  /** Browser frames read in this tick, not yet appended upstream (see fromBrowser). */
  private pendingAudio: Buffer[] = [];
  private pendingArrivals: number[] = [];

  /** `upstream()`: the socket audio goes to now, or null while it has nowhere to go (not ready, reconnecting). */
  constructor(
    private readonly browser: WebSocket,
    private readonly upstream: () => WebSocket | null,
    private readonly limits: VoiceLimits,
    private readonly observer?: VoiceObserver,
  ) {}

  /** Seconds of audio relayed each way (what is metered). */
  get seconds() {
    return { inSeconds: pcmMs(this.stats.audioInBytes) / 1000, outSeconds: pcmMs(this.stats.audioOutBytes) / 1000 };
  }

  /**
   * A browser frame (valid pcm16). Frames one socket read delivered together (the browser's frames
   * queue up in the kernel while the loop is busy) go upstream as ONE append, at the end of the
   * current tick: no frame waits for a timer or another read, and a busy gateway spends one message
   * and one write on a whole backlog instead of one per 20 ms frame. The upstream's input buffer is
   * a byte stream, so the audio is the same.
   */
  fromBrowser(frame: Buffer, arrivedAt: number): void {
    const up = this.upstream();
    if (!up || up.bufferedAmount > this.limits.maxBufferedBytes) return void (this.stats.droppedIn += frame.length);
    this.pendingAudio.push(frame);
    if (this.observer?.forwarded) this.pendingArrivals.push(arrivedAt);
    if (this.pendingAudio.length === 1) process.nextTick(this.flush);
  }

  /** Model audio for the browser: 'stuck' when the browser has stopped reading altogether. */
  toBrowser(pcm: Buffer): 'sent' | 'dropped' | 'stuck' {
    const buffered = this.browser.bufferedAmount;
    if (buffered > this.limits.maxBufferedBytes * 4) return 'stuck';
    if (buffered > this.limits.maxBufferedBytes) {
      this.stats.droppedOut += pcm.length;
      return 'dropped';
    }
    this.stats.audioOutBytes += pcm.length;
    this.browser.send(pcm, { binary: true });
    return 'sent';
  }

  private readonly flush = (): void => {
    const frames = this.pendingAudio;
    const arrivals = this.pendingArrivals;
    this.pendingAudio = [];
    this.pendingArrivals = [];
    const pcm = frames.length === 1 ? frames[0]! : Buffer.concat(frames);
    const up = this.upstream();
    if (!up || up.readyState !== up.OPEN) return void (this.stats.droppedIn += pcm.length);
    const b64 = pcm.toString('base64');
    const message = Buffer.allocUnsafe(APPEND_HEAD.length + b64.length + APPEND_TAIL.length);
    APPEND_HEAD.copy(message, 0);
    message.write(b64, APPEND_HEAD.length, 'latin1');
    APPEND_TAIL.copy(message, APPEND_HEAD.length + b64.length);
    // A Buffer is masked into one new buffer with its header: one write, where a string costs two.
    up.send(message, { binary: false });
    this.stats.audioInBytes += pcm.length;
    if (this.observer?.forwarded) {
      const now = performance.now();
      for (const at of arrivals) this.observer.forwarded(now - at);
    }
    this.observer?.appended?.(frames.length);
  };
}
