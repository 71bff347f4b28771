/**
 * How long this thread's event loop went without running a timer while `work` ran: the longest gap
 * between ticks of an `everyMs` interval. Work done elsewhere (another thread, the database's) leaves
 * it near `everyMs`; work done here in one turn makes it as long as that turn.
 */
export async function longestLoopGap(work: () => Promise<unknown>, everyMs = 5): Promise<number> {
  let last = performance.now();
  let gap = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, everyMs);
  try {
    await work();
  } finally {
    clearInterval(ticker);
  }
  return Math.max(gap, performance.now() - last);
}
