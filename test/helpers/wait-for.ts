/**
 * Waiting on a condition instead of the clock: a test polls until what it waits for holds, and the
 * deadline only bounds a hung run, so it is generous (a loaded machine is slow, not wrong). Passing
 * it throws, naming what never came and the last value read.
 */
export async function waitFor<T>(what: string, read: () => T | Promise<T>, done: (v: T) => boolean, opts: { timeoutMs?: number; everyMs?: number } = {}): Promise<T> {
  const { timeoutMs = 120_000, everyMs = 50 } = opts;
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > until) throw new Error(`${what} within ${timeoutMs} ms; last seen: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** waitFor on a plain condition. */
export const waitUntil = (what: string, done: () => boolean | Promise<boolean>, opts?: { timeoutMs?: number; everyMs?: number }) =>
  waitFor(what, done, (v) => v, opts).then(() => undefined);
