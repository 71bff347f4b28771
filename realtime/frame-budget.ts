/**
 * How many frames a browser may send: a token bucket refilled at `perSecond` and holding
 * `burstSeconds` of it. A fixed one-second window counted the server's own stalls against the
 * visitor: frames a browser sent on time but the gateway read late (a busy event loop) arrived
 * as one burst and ended the session as a flood. With the bucket, a stall of up to
 * `burstSeconds` at the full rate (more at the widget's pace) passes; a sustained flood still
 * runs dry within `burstSeconds`.
 */
export class FrameBudget {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly burstSeconds: number,
    now: number,
  ) {
    this.tokens = perSecond * burstSeconds;
    this.last = now;
  }

  /** Spends one frame at `now` (ms, monotonic); false when the budget is spent. */
  take(now: number): boolean {
    const capacity = this.perSecond * this.burstSeconds;
    this.tokens = Math.min(capacity, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
