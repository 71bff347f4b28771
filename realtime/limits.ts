/**
 * The gateway's limits: what config sets (VOICE_* variables) plus the few timings tests shorten.
 * Memory per session is bounded by maxBufferedBytes in each direction: audio beyond it is dropped
 * (real-time audio that arrives late is worthless anyway), and a browser that stops reading even
 * control messages is cut off at four times the bound.
 */
import type { Config } from '../src/config';

export type VoiceLimits = {
  maxSessionMs: number;
  idleTimeoutMs: number;
  maxFramesPerSecond: number;
  maxBufferedBytes: number;
  /** Browser and upstream are pinged this often; a missing pong by the next ping ends the session. */
  pingIntervalMs: number;
  /** While an answer is expected, this long without any upstream event is a stalled upstream. */
  upstreamStallMs: number;
  upstreamConnectTimeoutMs: number;
  /** How long SIGTERM waits for sessions to close politely before cutting them. */
  shutdownGraceMs: number;
};

export function voiceLimits(config: Pick<Config, 'voice'>, overrides: Partial<VoiceLimits> = {}): VoiceLimits {
  return {
    maxSessionMs: config.voice.maxSessionSeconds * 1000,
    idleTimeoutMs: config.voice.idleTimeoutSeconds * 1000,
    maxFramesPerSecond: config.voice.maxFramesPerSecond,
    maxBufferedBytes: config.voice.maxBufferedBytes,
    pingIntervalMs: 5_000,
    upstreamStallMs: 15_000,
    upstreamConnectTimeoutMs: 10_000,
    shutdownGraceMs: 2_000,
    ...overrides,
  };
}
