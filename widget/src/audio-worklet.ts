/**
 * widget-audio.js: the voice AudioWorklet module, served from /embed like the widget itself (so a
 * page whose Content-Security-Policy allows our script allows this too; no blob: URLs needed).
 *
 *   gw-capture  runs on a context at the device's default rate (44.1 kHz in headless Chromium,
 *               48 kHz on most hardware) and resamples to 24 kHz here, because Firefox cannot connect
 *               a microphone to a context of another rate; posts pcm16 frames of FRAME_SAMPLES.
 *   gw-player   runs on a 24 kHz context, plays queued pcm16 frames, and counts the samples it
 *               really output since the last item mark: the gateway truncates the model's audio at
 *               that point on barge-in, so what the model remembers saying is what was heard.
 */

declare const sampleRate: number;
declare function registerProcessor(name: string, ctor: unknown): void;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}

const TARGET_RATE = 24_000;
/** 40 ms at 24 kHz: inside the protocol's 20–100 ms, few enough messages per second. */
const FRAME_SAMPLES = 960;

class CaptureProcessor extends AudioWorkletProcessor {
  private readonly step = sampleRate / TARGET_RATE;
  /** Position of the next output sample, in input samples of the current block (-1 = the previous block's last). */
  private pos = 0;
  private last = 0;
  private frame = new Int16Array(FRAME_SAMPLES);
  private filled = 0;

  process(inputs: Float32Array[][]): boolean {
    const input = inputs[0]?.[0];
    if (!input || input.length === 0) return true;
    // Linear interpolation; index -1 is the previous block's last sample.
    while (this.pos < input.length - 1) {
      const i = Math.floor(this.pos);
      const a = i < 0 ? this.last : input[i]!;
      this.push(a + (input[i + 1]! - a) * (this.pos - i));
      this.pos += this.step;
    }
    this.pos -= input.length;
    this.last = input[input.length - 1]!;
    return true;
  }

  private push(v: number) {
    const s = Math.max(-1, Math.min(1, v));
    this.frame[this.filled++] = s < 0 ? s * 0x8000 : s * 0x7fff;
    if (this.filled === FRAME_SAMPLES) {
      const buffer = this.frame.buffer;
      this.port.postMessage(buffer, [buffer]);
      this.frame = new Int16Array(FRAME_SAMPLES);
      this.filled = 0;
    }
  }
}

type Queued = Int16Array | 'mark';

class PlayerProcessor extends AudioWorkletProcessor {
  private readonly queue: Queued[] = [];
  private offset = 0;
  /** Samples of the current assistant audio item actually output. */
  private played = 0;
  private total = 0;
  private sinceReport = 0;
  private wasPlaying = false;

  constructor() {
    super();
    this.port.onmessage = (e: MessageEvent) => {
      const msg = e.data as { type: 'audio'; pcm: ArrayBuffer } | { type: 'mark' } | { type: 'clear' };
      if (msg.type === 'audio') this.queue.push(new Int16Array(msg.pcm));
      else if (msg.type === 'mark') this.queue.push('mark');
      else if (msg.type === 'clear') {
        this.queue.length = 0;
        this.offset = 0;
        this.port.postMessage({ type: 'cleared', played: this.played, total: this.total });
        this.played = 0;
      }
    };
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const out = outputs[0]![0]!;
    let n = 0;
    while (n < out.length && this.queue.length > 0) {
      const head = this.queue[0]!;
      if (head === 'mark') {
        this.queue.shift();
        this.played = 0;
        continue;
      }
      const take = Math.min(out.length - n, head.length - this.offset);
      for (let k = 0; k < take; k++) out[n + k] = head[this.offset + k]! / 0x8000;
      n += take;
      this.offset += take;
      if (this.offset === head.length) {
        this.queue.shift();
        this.offset = 0;
      }
    }
    out.fill(0, n);
    for (let c = 1; c < outputs[0]!.length; c++) outputs[0]![c]!.set(out);
    this.played += n;
    this.total += n;
    this.sinceReport += out.length;
    const playing = this.queue.length > 0;
    // About every 100 ms while audio plays, and once when the queue runs dry.
    if ((playing && this.sinceReport >= 2400) || (this.wasPlaying && !playing)) {
      this.sinceReport = 0;
      this.port.postMessage({ type: 'progress', played: this.played, total: this.total, playing });
    }
    this.wasPlaying = playing;
    return true;
  }
}

registerProcessor('gw-capture', CaptureProcessor);
registerProcessor('gw-player', PlayerProcessor);
